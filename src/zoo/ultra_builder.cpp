#include "zoo/ultra_builder.h"

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "zoo/probe.h"
#include "zoo/synthetic_weights.h"

namespace edgeq::zoo {

namespace {
// Folded-BN targets. Positive shifts keep most pre-activations in SiLU's near-linear range; with
// shifts centred on 0 and unit scales the stack is chaotic (each layer multiplies perturbations
// by ~1.3), so activations on images other than the calibration ones grow 10-1000x by the head.
const double kBetaMean = 1.0, kBetaStd = 0.5;           // shifts
const double kLogGammaMean = -0.2, kLogGammaStd = 0.3;  // scales (log), median 0.82
// A channel's variance on the few calibration images is a noisy estimate; normalizing by it
// alone would inflate, on other images, the channels it happened to underestimate. Blend it
// with the layer's average variance.
const double kOwnVarianceWeight = 0.5;
}  // namespace

Scope Scope::seq(int i) const {
  size_t slash = path.rfind('/');
  std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
  return {path + "/" + last + "." + std::to_string(i), param + "." + std::to_string(i)};
}

Attribute UltraBuilder::attr(int64_t v) {
  return Attribute::integer(v);
}
Attribute UltraBuilder::attr(float v) {
  return Attribute::real(v);
}
Attribute UltraBuilder::attr(const std::string& v) {
  return Attribute::string(v);
}
Attribute UltraBuilder::attr(const std::vector<int64_t>& v) {
  return Attribute::integers(v);
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

ConvTarget UltraBuilder::bn_target(const Scope& s, int64_t cout) const {
  Tensor beta = normal_tensor(seed_, s.param + "#beta", {cout}, kBetaMean, kBetaStd);
  Tensor log_gamma = normal_tensor(seed_, s.param + "#gamma", {cout}, kLogGammaMean, kLogGammaStd);
  ConvTarget t;
  for (int64_t o = 0; o < cout; ++o) {
    t.mean.push_back(beta.data<float>()[o]);
    t.std.push_back(std::exp(log_gamma.data<float>()[o]));
  }
  return t;
}

Feat UltraBuilder::conv2d(const Scope& s, const Feat& x, int64_t cout, int k, int stride,
                          int groups, const ConvTarget& target) {
  EDGEQ_CHECK(x.c % groups == 0 && cout % groups == 0, "zoo: ", s.path, ": ", x.c, "->", cout,
              " channels do not divide into ", groups, " groups");
  EDGEQ_CHECK(static_cast<int64_t>(target.mean.size()) == cout &&
                  static_cast<int64_t>(target.std.size()) == cout,
              "zoo: ", s.path, ": conv target needs ", cout, " channels");
  const int64_t cin_g = x.c / groups;
  const double fan_in = static_cast<double>(cin_g * k * k);
  const std::string wname = s.param + ".weight", bname = s.param + ".bias";
  // He-normal draw, then per output channel: scale to the target spread, shift to its mean.
  Tensor w = normal_tensor(seed_, wname, {cout, cin_g, k, k}, 0.0, std::sqrt(2.0 / fan_in));
  Tensor z = probe::conv2d(x.probe, w, stride, groups);
  std::vector<double> mean, var;
  probe::channel_stats(z, &mean, &var);
  double layer_var = 0;
  for (double v : var) layer_var += v / cout;
  std::vector<double> scale(cout), shift(cout);
  Tensor bias(DType::kFloat32, {cout});
  const int64_t per_out = cin_g * k * k;
  for (int64_t o = 0; o < cout; ++o) {
    double v = kOwnVarianceWeight * var[o] + (1 - kOwnVarianceWeight) * layer_var;
    scale[o] = target.std[o] / std::sqrt(v + 1e-12);
    shift[o] = target.mean[o] - scale[o] * mean[o];
    float* row = w.data<float>() + o * per_out;
    for (int64_t j = 0; j < per_out; ++j) row[j] = static_cast<float>(row[j] * scale[o]);
    bias.data<float>()[o] = static_cast<float>(shift[o]);
  }
  probe::affine_channels(z, scale, shift);
  constant(wname, w);
  constant(bname, bias);
  const int64_t pad = k / 2;
  std::map<std::string, Attribute> attrs = {
      {"dilations", attr(std::vector<int64_t>{1, 1})},
      {"group", attr(static_cast<int64_t>(groups))},
      {"kernel_shape", attr(std::vector<int64_t>{k, k})},
      {"pads", attr(std::vector<int64_t>{pad, pad, pad, pad})},
      {"strides", attr(std::vector<int64_t>{stride, stride})}};
  Feat y;
  y.v = add_node1(s, "Conv", {x.v, wname, bname}, std::move(attrs));
  y.c = cout;
  y.h = (x.h + 2 * pad - k) / stride + 1;
  y.w = (x.w + 2 * pad - k) / stride + 1;
  y.probe = z;
  return y;
}

Feat UltraBuilder::conv(const Scope& s, const Feat& x, int64_t cout, int k, int stride, int groups,
                        bool act) {
  Scope cs = s.child("conv");
  Feat y = conv2d(cs, x, cout, k, stride, groups, bn_target(cs, cout));
  return act ? silu(s.child("act"), y) : y;
}

Feat UltraBuilder::silu(const Scope& s, const Feat& x) {
  std::string sig = add_node1(s, "Sigmoid", {x.v});
  Feat y = x;
  y.v = add_node1(s, "Mul", {x.v, sig});
  y.probe = probe::silu(x.probe);
  return y;
}

Feat UltraBuilder::concat(const Scope& s, const std::vector<Feat>& xs) {
  std::vector<std::string> in;
  std::vector<const Tensor*> parts;
  Feat y = xs.at(0);
  y.c = 0;
  for (const auto& x : xs) {
    parts.push_back(&x.probe);
    EDGEQ_CHECK(x.h == y.h && x.w == y.w, "zoo: ", s.path, ": Concat of ", x.v,
                " with a different spatial size");
    in.push_back(x.v);
    y.c += x.c;
  }
  y.v = add_node1(s, "Concat", in, {{"axis", attr(int64_t{1})}});
  y.probe = probe::concat_channels(parts);
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
  int64_t begin = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    ys.push_back({outs[i], sizes[i], x.h, x.w, probe::slice_channels(x.probe, begin, sizes[i])});
    begin += sizes[i];
  }
  return ys;
}

Feat UltraBuilder::add(const Scope& s, const Feat& a, const Feat& b) {
  EDGEQ_CHECK(a.c == b.c && a.h == b.h && a.w == b.w, "zoo: ", s.path, ": Add of ", a.v, " and ",
              b.v, " with different shapes");
  Feat y = a;
  y.v = add_node1(s, "Add", {a.v, b.v});
  y.probe = probe::add(a.probe, b.probe);
  return y;
}

}  // namespace edgeq::zoo
