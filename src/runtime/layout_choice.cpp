#include "runtime/layout_choice.h"

#include <unordered_set>

namespace edgeq {

bool is_float_4d(const ValueDesc& d) {
  return d.dtype == DType::kFloat32 && d.shape.size() == 4;
}

bool is_elementwise_op(const std::string& op) {
  static const std::unordered_set<std::string> ops = {"Sigmoid", "Mul",  "Add", "Sub", "Div",
                                                      "Relu",    "Tanh", "Exp", "Neg", "Abs"};
  return ops.count(op) != 0;
}

bool is_view_op(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
         op == "Identity";
}

Layout choose_layout(const Node& node, const std::vector<ValueDesc>& inputs,
                     const Shape& output_shape, const std::function<bool(size_t)>& input_is_nhwc) {
  const std::string& op = node.op_type;
  if (!node.domain.empty() || inputs.empty() || !is_float_4d(inputs[0]) || inputs[0].constant)
    return Layout::kPlain;
  if (op == "Conv") return Layout::kNHWC;
  if (op == "MaxPool" || op == "AveragePool" || op == "Resize")
    return input_is_nhwc(0) ? Layout::kNHWC : Layout::kPlain;
  const bool elementwise = is_elementwise_op(op);
  if (op != "Concat" && op != "Split" && !elementwise) return Layout::kPlain;
  bool ok = true, any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueDesc& d = inputs[i];
    if (d.dtype == DType::kUndefined || (op == "Split" && i > 0)) continue;  // omitted, split sizes
    if (elementwise) {
      if (shape_numel(d.shape) == 1) continue;
      ok &= d.shape == output_shape && !d.constant;
    } else {
      ok &= is_float_4d(d) && !d.constant;
    }
    any |= input_is_nhwc(i);
  }
  return ok && any ? Layout::kNHWC : Layout::kPlain;
}

}  // namespace edgeq
