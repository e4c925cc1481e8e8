#include "analysis/qdq_patch.h"

#include <map>
#include <set>

#include "analysis/qdq_view.h"
#include "core/error.h"
#include "encode/quant_plan.h"
#include "encode/weight_encoding.h"
#include "ir/constants.h"

namespace edgeq {
namespace {

constexpr const char* kContribDomain = "com.microsoft";

struct Act {
  ActivationQdq qdq;
  std::set<std::string> params;  // scale / zero-point names of its Q and DQ nodes
  Encoding enc;
};

Encoding current_encoding(const Graph& g, const ActivationQdq& a) {
  const Tensor* s = find_constant(g, a.scale);
  EDGEQ_CHECK(s && s->numel() == 1 && s->dtype() == DType::kFloat32, "patch: '", a.value,
              "' has a per-axis or non-float scale; patch re-encodes per-tensor activations only");
  const Node& q = g.nodes[a.quantize];
  DType qt = DType::kUInt8;
  int64_t zp = 0;
  if (!a.zero_point.empty()) {
    const Tensor* z = find_constant(g, a.zero_point);
    EDGEQ_CHECK(z && z->numel() == 1, "patch: '", a.value, "' has a non-constant zero point");
    qt = z->dtype();
    zp = z->to_ints()[0];
  } else if (q.attr_int("output_dtype", 0)) {
    qt = dtype_from_onnx(static_cast<int>(q.attr_int("output_dtype", 0)));
  }
  return encoding_from_onnx(s->to_floats()[0], zp, qt);
}

bool same_encoding(const Encoding& a, const Encoding& b) {
  return a.scale == b.scale && a.zero_point() == b.zero_point() && a.dtype() == b.dtype();
}

struct Groups {
  std::map<std::string, std::string> parent;
  std::map<std::string, std::string> reason;  // member -> why it joined
  std::string find(const std::string& v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v) return parent[v] = v;
    return it->second = find(it->second);
  }
  void unite(const std::string& a, const std::string& b, const std::string& why) {
    std::string ra = find(a), rb = find(b);
    if (ra == rb) return;
    parent[rb] = ra;
    reason.emplace(a, why);
    reason.emplace(b, why);
  }
};

void check_value(const Graph& g, const std::map<std::string, Act>& acts, const std::string& v) {
  if (acts.count(v)) return;
  for (const Node& n : g.nodes)
    if (n.op_type == "DequantizeLinear" && !n.outputs.empty() &&
        float_value_name(n.outputs[0]) == v && find_constant(g, n.inputs[0]))
      fail("patch: '", v,
           "' is a quantized constant (weight or bias); patch re-encodes activations only");
  Graph view = strip_qdq(g);
  for (const ValueInfo& in : view.inputs)
    if (in.name == v) fail("patch: graph input '", v, "' has no QuantizeLinear (it runs in float)");
  for (const Node& n : view.nodes)
    for (const std::string& o : n.outputs)
      if (o == v)
        fail("patch: '", v, "' has no QuantizeLinear / DequantizeLinear (it runs in float)");
  fail("patch: '", v, "' is not a value of the model");
}

}  // namespace

PatchResult patch_qdq(const Graph& qdq, const PatchRequest& req) {
  EDGEQ_CHECK(!req.values.empty(), "patch: no value to patch given");
  EDGEQ_CHECK(req.lo < req.hi, "patch: range ", req.lo, " ", req.hi,
              " is empty (LO must be below HI)");
  EDGEQ_CHECK(!req.bits || *req.bits == 8 || *req.bits == 16, "patch: ", *req.bits,
              "-bit encodings are", " not supported (8 or 16)");
  std::map<std::string, Act> acts;
  for (const ActivationQdq& a : find_activation_qdq(qdq)) {
    Act act{a, {}, current_encoding(qdq, a)};
    std::vector<int> nodes = a.dequantize;
    nodes.push_back(a.quantize);
    for (int i : nodes)
      for (size_t k = 1; k < qdq.nodes[i].inputs.size(); ++k)
        if (!qdq.nodes[i].inputs[k].empty()) act.params.insert(qdq.nodes[i].inputs[k]);
    EDGEQ_CHECK(!acts.count(a.value), "patch: value '", a.value,
                "' has more than one QuantizeLinear");
    acts.emplace(a.value, std::move(act));
  }
  for (const std::string& v : req.values) check_value(qdq, acts, v);

  // Groups: shared constants, and identical encodings joined by Concat / move-only ops.
  Groups groups;
  std::map<std::string, std::string> param_owner;
  for (const auto& [v, a] : acts)
    for (const std::string& p : a.params) {
      auto [it, fresh] = param_owner.emplace(p, v);
      if (!fresh) groups.unite(it->second, v, "reads the same Q/DQ parameter '" + p + "'");
    }
  Graph view = strip_qdq(qdq);
  for (const Node& n : view.nodes) {
    if (!shares_encoding(n.op_type, Placement::kQnn)) continue;
    for (size_t i : data_inputs(n)) {
      if (!n.has_input(i) || !acts.count(n.inputs[i])) continue;
      for (const std::string& o : n.outputs)
        if (acts.count(o) && same_encoding(acts.at(n.inputs[i]).enc, acts.at(o).enc))
          groups.unite(o, n.inputs[i], "shares one encoding across " + n.describe());
    }
  }
  std::set<std::string> roots, named(req.values.begin(), req.values.end());
  for (const std::string& v : req.values) roots.insert(groups.find(v));

  PatchResult res;
  const Encoding& first = acts.at(req.values[0]).enc;
  int bits = req.bits ? *req.bits : first.bitwidth;
  EDGEQ_CHECK(!range_below_float_step(req.lo, req.hi, bits, first.symmetric, first.is_signed),
              "patch '", req.values[0], "': range [", req.lo, ", ", req.hi, "] is narrower than ",
              bits,
              "-bit codes can step in float32 (a step below 1.2e-38); give [0, 0] for a "
              "value that is always 0, or a wider range");
  res.encoding = encoding_from_range(req.lo, req.hi, bits, first.symmetric, first.is_signed);
  const Encoding& e = res.encoding;
  res.graph = qdq;
  Graph& g = res.graph;
  bool contrib = bits == 16 && g.opset("") < 21;
  if (contrib && g.opset(kContribDomain) == 0) g.set_opset(kContribDomain, 1);
  Tensor scale = Tensor::scalar<float>(e.scale);
  Tensor zp = quantize_tensor(Tensor::scalar<float>(0.0f), TensorEncoding::per_tensor(e));
  for (const auto& [v, a] : acts) {
    if (!roots.count(groups.find(v))) continue;
    res.patched.push_back(v);
    if (!named.count(v)) res.pulled_in.push_back(v + " (" + groups.reason[v] + ")");
    std::vector<int> nodes = a.qdq.dequantize;
    nodes.push_back(a.qdq.quantize);
    std::string zname = a.qdq.zero_point;
    if (zname.empty() && e.dtype() != DType::kUInt8) {  // an omitted zero point means uint8
      zname = g.unique_name(v + "_zero_point");
      g.initializers[zname] = zp;
    }
    for (int i : nodes) {
      Node& n = g.nodes[i];
      if (!zname.empty()) {
        if (n.inputs.size() < 3) n.inputs.resize(3);
        if (n.inputs[2].empty()) n.inputs[2] = zname;
      }
      for (size_t k = 1; k < n.inputs.size() && k < 3; ++k) {
        Tensor* t = find_constant(g, n.inputs[k]);
        EDGEQ_CHECK(t, "patch: ", n.describe(), " reads a non-constant parameter '", n.inputs[k],
                    "'");
        *t = (k == 1 ? scale : zp).reshaped(t->shape());
      }
      if (n.has_attr("output_dtype")) n.attrs["output_dtype"].i = static_cast<int64_t>(e.dtype());
      if (bits == 16) n.domain = contrib ? kContribDomain : "";
    }
    const std::string& qout = g.nodes[a.qdq.quantize].outputs.at(0);
    for (ValueInfo& vi : g.value_info)
      if (vi.name == qout) vi.dtype = e.dtype();
  }
  return res;
}

}  // namespace edgeq
