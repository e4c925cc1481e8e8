// The float view of a QDQ model: what the model computes once every QuantizeLinear ->
// DequantizeLinear pair is taken out and every quantized constant is dequantized. Values keep
// the names of the FP32 model they were exported from (ORT's and edgeq's "_QuantizeLinear_Input"
// / "_DequantizeLinear_Output" suffixes are stripped, as encodings_from_qdq names them), so
// FP32 calibration statistics and encodings line up with it. Works on any QDQ model; one whose
// inputs / outputs carry codes (quantize --quantize-io) gets float ones (runtime/float_io.h).
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// One quantized activation of a QDQ graph: QuantizeLinear(value) -> DequantizeLinear(s).
struct ActivationQdq {
  std::string value;              // name in the float view
  int quantize = -1;              // index of the QuantizeLinear node
  std::vector<int> dequantize;    // indices of the DequantizeLinear nodes reading its output
  std::string scale, zero_point;  // the QuantizeLinear's parameter inputs ("" when omitted)
};

bool is_qdq_op(const Node& n);  // QuantizeLinear / DequantizeLinear (ONNX or com.microsoft)
// "<v>_QuantizeLinear_Input" -> "<v>", "<v>_DequantizeLinear_Output" -> "<v>"; others unchanged.
std::string float_value_name(const std::string& qdq_name);

// Activations quantized by a Q -> DQ pair whose scale is a constant, in graph order.
std::vector<ActivationQdq> find_activation_qdq(const Graph& g);

// The float view (see above). A model without Q/DQ comes back unchanged.
Graph strip_qdq(const Graph& g);

}  // namespace edgeq
