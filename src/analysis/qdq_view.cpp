#include "analysis/qdq_view.h"

#include <map>
#include <set>

#include "core/error.h"
#include "core/text_format.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

std::map<std::string, const Tensor*> constants_of(const Graph& g) {
  std::map<std::string, const Tensor*> c;
  for (const auto& kv : g.initializers) c[kv.first] = &kv.second;
  for (const Node& n : g.nodes)
    if (n.op_type == "Constant" && n.has_attr("value") && n.outputs.size() == 1)
      c[n.outputs[0]] = &n.attrs.at("value").t;
  return c;
}

// (q - zero_point) * scale, per tensor or along the DequantizeLinear's axis.
Tensor dequantize_constant(const Node& dq, const Tensor& q, const Tensor& scale, const Tensor* zp) {
  std::vector<int64_t> qv = q.to_ints();
  std::vector<float> s = scale.to_floats();
  std::vector<int64_t> z = zp ? zp->to_ints() : std::vector<int64_t>(s.size(), 0);
  EDGEQ_CHECK(!s.empty() && z.size() == s.size(), dq.describe(),
              ": scale and zero point sizes differ");
  Tensor out(DType::kFloat32, q.shape());
  float* o = out.data<float>();
  int64_t inner = 1, channels = 1;
  if (s.size() > 1) {
    int64_t axis = dq.attr_int("axis", 1);
    if (axis < 0) axis += q.rank();
    EDGEQ_CHECK(axis >= 0 && axis < q.rank() && q.dim(axis) == static_cast<int64_t>(s.size()),
                dq.describe(), ": per-axis scale of ", s.size(), " does not fit data ",
                shape_str(q.shape()));
    channels = q.dim(axis);
    for (int64_t d = axis + 1; d < q.rank(); ++d) inner *= q.dim(d);
  }
  for (size_t i = 0; i < qv.size(); ++i) {
    size_t c = s.size() > 1 ? (i / inner) % channels : 0;
    o[i] = static_cast<float>(qv[i] - z[c]) * s[c];
  }
  return out;
}

}  // namespace

bool is_qdq_op(const Node& n) {
  return (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") &&
         (n.domain.empty() || n.domain == "com.microsoft");
}

std::string float_value_name(const std::string& qdq_name) {
  return strip_suffix(strip_suffix(qdq_name, "_QuantizeLinear_Input"), "_DequantizeLinear_Output");
}

std::vector<ActivationQdq> find_activation_qdq(const Graph& g) {
  auto constants = constants_of(g);
  std::vector<ActivationQdq> out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& q = g.nodes[i];
    if (q.op_type != "QuantizeLinear" || !is_qdq_op(q) || !q.has_input(1)) continue;
    if (constants.count(q.inputs[0]) || !constants.count(q.inputs[1])) continue;
    ActivationQdq a;
    a.value = float_value_name(q.inputs[0]);
    a.quantize = static_cast<int>(i);
    a.scale = q.inputs[1];
    a.zero_point = q.has_input(2) ? q.inputs[2] : "";
    bool only_dq = true;
    for (int c : g.consumers_of(q.outputs.at(0))) {
      if (g.nodes[c].op_type == "DequantizeLinear" && is_qdq_op(g.nodes[c]))
        a.dequantize.push_back(c);
      else
        only_dq = false;
    }
    if (only_dq && !a.dequantize.empty()) out.push_back(std::move(a));
  }
  return out;
}

Graph strip_qdq(const Graph& model) {
  Graph g = model;
  float_io_view(g);  // inputs / outputs that carry codes: their Q/DQ pairs go like the others
  auto constants = constants_of(g);
  std::set<int> removed;
  std::map<std::string, std::string> rename;
  Graph out = g;
  // Quantized constants: DequantizeLinear(const) -> a float initializer under the DQ's output name.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& dq = g.nodes[i];
    if (dq.op_type != "DequantizeLinear" || !is_qdq_op(dq) || !dq.has_input(1)) continue;
    auto data = constants.find(dq.inputs[0]);
    auto scale = constants.find(dq.inputs[1]);
    if (data == constants.end() || scale == constants.end()) continue;
    const Tensor* zp = nullptr;
    if (dq.has_input(2)) {
      auto z = constants.find(dq.inputs[2]);
      if (z == constants.end()) continue;
      zp = z->second;
    }
    out.initializers[dq.outputs.at(0)] = dequantize_constant(dq, *data->second, *scale->second, zp);
    removed.insert(static_cast<int>(i));
  }
  // Activation pairs: the float value flows straight through.
  for (const ActivationQdq& a : find_activation_qdq(g)) {
    removed.insert(a.quantize);
    rename[g.nodes[a.quantize].inputs[0]] = a.value;
    for (int d : a.dequantize) {
      removed.insert(d);
      rename[g.nodes[d].outputs.at(0)] = a.value;
    }
  }
  if (removed.empty()) return out;
  auto renamed = [&](std::string& v) {
    auto it = rename.find(v);
    if (it != rename.end()) v = it->second;
  };
  std::vector<Node> kept;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    if (removed.count(static_cast<int>(i))) continue;
    Node n = std::move(out.nodes[i]);
    for (std::string& v : n.inputs) renamed(v);
    for (std::string& v : n.outputs) renamed(v);
    kept.push_back(std::move(n));
  }
  out.nodes = std::move(kept);
  for (ValueInfo& v : out.inputs) renamed(v.name);
  for (ValueInfo& v : out.outputs) renamed(v.name);
  out.value_info.clear();
  // Drop constants nothing reads any more (the quantized data, scales and zero points).
  std::set<std::string> used;
  for (const Node& n : out.nodes)
    for (const std::string& v : n.inputs) used.insert(v);
  for (const ValueInfo& v : out.outputs) used.insert(v.name);
  for (auto it = out.initializers.begin(); it != out.initializers.end();)
    it = used.count(it->first) ? std::next(it) : out.initializers.erase(it);
  return out;
}

}  // namespace edgeq
