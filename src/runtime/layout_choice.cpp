#include "runtime/layout_choice.h"

#include "ir/op_traits.h"

namespace edgeq {

bool is_activation_4d(const ValueDesc& d) {
  return (d.dtype == DType::kFloat32 || d.dtype == DType::kUInt8) && d.shape.size() == 4;
}

Layout choose_layout(const Node& node, const std::vector<ValueDesc>& inputs,
                     const Shape& output_shape, const std::function<bool(size_t)>& input_is_nhwc) {
  const std::string& op = node.op_type;
  const OpTraits& traits = op_traits(node);
  if (!traits.nhwc || inputs.empty() || !is_activation_4d(inputs[0]) || inputs[0].constant)
    return Layout::kPlain;
  // Conv and QConv: always NHWC, even where the input is plain (the DFL's Conv after its Softmax,
  // a value a hook reads in its ONNX layout, a DequantizeLinear's output): oneDNN's plain-layout
  // float convolution is a GEMM whose sums follow the thread count on AVX2, so results would
  // depend on --threads and on which values are watched; its plain int8 one is a slow reference
  // kernel.
  if (traits.data == DataInputs::kWeighted) return Layout::kNHWC;
  if (op == "MaxPool" || op == "AveragePool" || op == "Resize")
    return input_is_nhwc(0) ? Layout::kNHWC : Layout::kPlain;
  const bool elementwise = traits.elementwise;
  bool ok = true, any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueDesc& d = inputs[i];
    if (d.dtype == DType::kUndefined || (op == "Split" && i > 0)) continue;  // omitted, split sizes
    if (elementwise) {
      if (shape_numel(d.shape) == 1) continue;
      ok &= d.shape == output_shape && !d.constant;
    } else {
      ok &= is_activation_4d(d) && !d.constant;
    }
    any |= input_is_nhwc(i);
  }
  return ok && any ? Layout::kNHWC : Layout::kPlain;
}

}  // namespace edgeq
