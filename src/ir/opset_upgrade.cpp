#include "ir/opset_upgrade.h"

#include <set>

#include "core/error.h"

namespace edgeq {

void upgrade_to_opset21(Graph& g) {
  const int64_t from = g.opset("");
  if (from >= 21) return;
  EDGEQ_CHECK(from >= 13, "cannot raise the model from opset ", from,
              " to 21 (below 13, re-export the model at opset 13 or newer)");
  static const std::set<std::string> reduce_axes_moved = {
      "ReduceMean", "ReduceMax",    "ReduceMin",       "ReduceProd",     "ReduceL1",
      "ReduceL2",   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  std::vector<std::pair<std::string, Tensor>> new_initializers;
  for (Node& n : g.nodes) {
    if (!n.domain.empty() && n.domain != "ai.onnx") continue;
    if (from < 18 && n.op_type == "Split" && !n.has_input(1) && !n.has_attr("num_outputs")) {
      n.attrs["num_outputs"] = Attribute::integer(static_cast<int64_t>(n.outputs.size()));
    }
    if (from < 18 && reduce_axes_moved.count(n.op_type) && n.has_attr("axes")) {
      std::vector<int64_t> axes = n.attr_ints("axes");
      std::string name = g.unique_name(n.name.empty() ? n.op_type + "_axes" : n.name + "_axes");
      for (const auto& kv : new_initializers)  // unique among the ones added in this pass too
        if (kv.first == name) name += "_" + std::to_string(new_initializers.size());
      new_initializers.push_back(
          {name, Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes)});
      n.attrs.erase("axes");
      if (n.inputs.size() < 2) n.inputs.resize(2);
      n.inputs[1] = name;
    }
  }
  for (auto& kv : new_initializers) g.initializers[kv.first] = kv.second;
  g.set_opset("", 21);
  if (g.ir_version < 10) g.ir_version = 10;  // opset 21 came with IR version 10 (ONNX 1.16)
}

}  // namespace edgeq
