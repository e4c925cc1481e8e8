#include "analysis/placement_advice.h"

#include <map>

#include "analysis/qdq_view.h"
#include "encode/qdq_import.h"

namespace edgeq {

std::optional<Placement> guess_placement(const Graph& model) {
  const auto acts = encodings_from_qdq(model).activations;
  if (acts.empty()) return std::nullopt;
  const Graph view = strip_qdq(model);
  auto encoded = [&](const std::string& v) {
    auto it = acts.find(v);
    return it != acts.end() && !it->second.is_float;
  };
  auto same = [&](const std::string& a, const std::string& b) {
    const Encoding &x = acts.at(a).channels.at(0), &y = acts.at(b).channels.at(0);
    return x.scale == y.scale && x.offset == y.offset && x.bitwidth == y.bitwidth;
  };
  bool conv_outputs = false;
  int concats = 0, shared = 0;
  for (const Node& n : view.nodes) {
    if (n.op_type == "Conv" && encoded(n.outputs[0]))
      for (int r : view.consumers_of(n.outputs[0]))
        conv_outputs = conv_outputs || view.nodes[r].op_type == "Sigmoid";
    if (n.op_type == "Concat" && encoded(n.outputs[0]) && n.inputs.size() > 1) {
      bool all = true;
      for (const std::string& in : n.inputs) all = all && encoded(in) && same(in, n.outputs[0]);
      ++concats;
      shared += all;
    }
  }
  if (!conv_outputs) return Placement::kCpu;
  // Under qnn every Concat shares one encoding; under ort only those whose inputs happen to
  // (Split outputs of one value, say).
  return concats > 0 && shared == concats ? Placement::kQnn : Placement::kOrt;
}

Finding placement_advice(const Graph& model, const TargetOps& target) {
  const std::optional<Placement> have = guess_placement(model);
  Finding f;
  f.kind = "placement";
  f.severity = Severity::kInfo;  // advice: what actually breaks shows as float-tail findings
  f.score = have && *have != target.placement ? 1 : 0;
  f.message = target.target + " wants Q/DQ placement '" +
              std::string(edgeq::name(target.placement)) + "'" +
              (target.placement_why.empty() ? "" : ": " + target.placement_why);
  if (!have)
    f.message += " (this model is float)";
  else if (*have == target.placement)
    f.message += "; this model's Q/DQ sit that way";
  else
    f.message +=
        "; this model's Q/DQ sit as placement '" + std::string(edgeq::name(*have)) + "' puts them";
  return f;
}

}  // namespace edgeq
