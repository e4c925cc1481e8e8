#include "zoo/ultra_builder.h"

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "zoo/synthetic_weights.h"

namespace edgeq::zoo {

// SiLU keeps about 0.36 of a unit Gaussian's second moment; 1.6^2 * 0.36 ~ 0.9 keeps the scale.
const double kSiluConvGain = 1.6;
const double kLinearConvGain = 1.0;
const double kConvBiasStd = 0.1;

Scope Scope::seq(int i) const {
  size_t slash = path.rfind('/');
  std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
  return {path + "/" + last + "." + std::to_string(i), param + "." + std::to_string(i)};
}

Attribute UltraBuilder::attr(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return a;
}
Attribute UltraBuilder::attr(float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  return a;
}
Attribute UltraBuilder::attr(const std::string& v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = v;
  return a;
}
Attribute UltraBuilder::attr(const std::vector<int64_t>& v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = v;
  return a;
}

std::vector<std::string> UltraBuilder::add_node(const Scope& s, const std::string& op,
                                                std::vector<std::string> inputs, int n_outputs,
                                                std::map<std::string, Attribute> attrs) {
  int k = op_counts_[s.path][op]++;
  Node n;
  n.name = s.path + "/" + op + (k ? "_" + std::to_string(k) : "");
  n.op_type = op;
  n.inputs = std::move(inputs);
  for (int i = 0; i < n_outputs; ++i) n.outputs.push_back(n.name + "_output_" + std::to_string(i));
  n.attrs = std::move(attrs);
  g_.nodes.push_back(n);
  return n.outputs;
}

std::string UltraBuilder::constant(const std::string& name, const Tensor& t) {
  auto it = g_.initializers.find(name);
  if (it != g_.initializers.end()) {
    const Tensor& old = it->second;
    EDGEQ_CHECK(old.dtype() == t.dtype() && old.shape() == t.shape() &&
                    std::memcmp(old.raw(), t.raw(), t.nbytes()) == 0,
                "zoo: constant '", name, "' defined twice with different values");
    return name;
  }
  g_.initializers[name] = t;
  return name;
}

std::string UltraBuilder::int64s(const std::string& name, const std::vector<int64_t>& v) {
  return constant(name, Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v));
}

std::string UltraBuilder::scalar(const std::string& name, float v) {
  return constant(name, Tensor::scalar<float>(v));
}

Feat UltraBuilder::conv2d(const Scope& s, const Feat& x, int64_t cout, int k, int stride,
                          int groups, const ConvInit& init, bool bias) {
  EDGEQ_CHECK(x.c % groups == 0 && cout % groups == 0, "zoo: ", s.path, ": ", x.c, "->", cout,
              " channels do not divide into ", groups, " groups");
  int64_t cin_g = x.c / groups;
  double fan_in = static_cast<double>(cin_g * k * k);
  std::string wname = s.param + ".weight";
  constant(wname,
           normal_tensor(seed_, wname, {cout, cin_g, k, k}, 0.0, init.gain / std::sqrt(fan_in)));
  std::vector<std::string> inputs = {x.v, wname};
  if (bias) {
    std::string bname = s.param + ".bias";
    if (!init.bias.empty()) {
      EDGEQ_CHECK(static_cast<int64_t>(init.bias.size()) == cout, "zoo: ", bname, " needs ", cout,
                  " values");
      constant(bname, Tensor::from_vector<float>({cout}, init.bias));
    } else {
      constant(bname, normal_tensor(seed_, bname, {cout}, init.bias_mean, init.bias_std));
    }
    inputs.push_back(bname);
  }
  int64_t pad = k / 2;
  std::map<std::string, Attribute> attrs = {
      {"dilations", attr(std::vector<int64_t>{1, 1})},
      {"group", attr(static_cast<int64_t>(groups))},
      {"kernel_shape", attr(std::vector<int64_t>{k, k})},
      {"pads", attr(std::vector<int64_t>{pad, pad, pad, pad})},
      {"strides", attr(std::vector<int64_t>{stride, stride})}};
  Feat y;
  y.v = add_node1(s, "Conv", std::move(inputs), std::move(attrs));
  y.c = cout;
  y.h = (x.h + 2 * pad - k) / stride + 1;
  y.w = (x.w + 2 * pad - k) / stride + 1;
  return y;
}

Feat UltraBuilder::conv(const Scope& s, const Feat& x, int64_t cout, int k, int stride, int groups,
                        bool act) {
  ConvInit init;
  init.gain = act ? kSiluConvGain : kLinearConvGain;
  init.bias_std = kConvBiasStd;
  Feat y = conv2d(s.child("conv"), x, cout, k, stride, groups, init);
  return act ? silu(s.child("act"), y) : y;
}

Feat UltraBuilder::silu(const Scope& s, const Feat& x) {
  std::string sig = add_node1(s, "Sigmoid", {x.v});
  Feat y = x;
  y.v = add_node1(s, "Mul", {x.v, sig});
  return y;
}

Feat UltraBuilder::concat(const Scope& s, const std::vector<Feat>& xs) {
  std::vector<std::string> in;
  Feat y = xs.at(0);
  y.c = 0;
  for (const auto& x : xs) {
    EDGEQ_CHECK(x.h == y.h && x.w == y.w, "zoo: ", s.path, ": Concat of ", x.v,
                " with a different spatial size");
    in.push_back(x.v);
    y.c += x.c;
  }
  y.v = add_node1(s, "Concat", in, {{"axis", attr(int64_t{1})}});
  return y;
}

std::vector<Feat> UltraBuilder::split(const Scope& s, const Feat& x,
                                      const std::vector<int64_t>& sizes) {
  std::string cname = s.path + "/split";
  int64_t total = 0;
  for (int64_t n : sizes) {
    cname += "_" + std::to_string(n);
    total += n;
  }
  EDGEQ_CHECK(total == x.c, "zoo: ", s.path, ": split sizes do not add up to ", x.c);
  auto outs = add_node(s, "Split", {x.v, int64s(cname, sizes)}, static_cast<int>(sizes.size()),
                       {{"axis", attr(int64_t{1})}});
  std::vector<Feat> ys;
  for (size_t i = 0; i < sizes.size(); ++i) ys.push_back({outs[i], sizes[i], x.h, x.w});
  return ys;
}

Feat UltraBuilder::add(const Scope& s, const Feat& a, const Feat& b) {
  EDGEQ_CHECK(a.c == b.c && a.h == b.h && a.w == b.w, "zoo: ", s.path, ": Add of ", a.v, " and ",
              b.v, " with different shapes");
  Feat y = a;
  y.v = add_node1(s, "Add", {a.v, b.v});
  return y;
}

}  // namespace edgeq::zoo
