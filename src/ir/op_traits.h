// Op traits: what the planner, the calibrator, the quantizer and the doctor need to know about an
// operator, in one table (op_traits.cpp). Every op the executor has a kernel for has a row (a test
// checks this); an op without a row gets the conservative defaults (no trait set, every input is
// data).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// Which inputs of a node carry tensor data (as opposed to weights or parameters such as shapes,
// axes, split sizes, Resize scales).
enum class DataInputs {
  kAll,       // every input (Add, Mul, Concat, ...)
  kFirst,     // input 0 only (Reshape, Resize, Slice, Split, Sigmoid, pooling, ...)
  kWeighted,  // input 0; 1 is a weight and 2 a bias (Conv, ConvTranspose, Gemm)
  kWhere,     // inputs 1 and 2 (Where: 0 is the condition)
  kNone,      // no float data (Shape, Size, Constant, ...)
};

struct OpTraits {
  DataInputs data = DataInputs::kAll;
  // The output is the input's bytes under another shape: planned as an alias, never copied.
  bool view = false;
  // The output holds exactly the values of data input 0, rearranged (its histogram is the
  // input's): view ops and Transpose.
  bool same_values = false;
  // Every output element is one of the data inputs' elements (Slice, Split, Gather, MaxPool,
  // Concat, nearest Resize, ...): a value on an encoding's grid stays on it.
  bool moves_values = false;
  // Applied element by element with NumPy broadcasting; runs in any layout when the operands
  // have the output's shape or one element.
  bool elementwise = false;
  // ONNX Runtime's QDQ quantizer wraps it (its QLinear / QDQ op registries).
  bool ort_quantizes = false;
  // Under ORT's QDQ rules the output shares the data input's encoding (ORT's "movers").
  bool ort_shares_encoding = false;
  // The executor can run it with 4-D activations stored NHWC.
  bool nhwc = false;
  // Multiply-accumulates over weights or two activations (Conv, ConvTranspose, MatMul, Gemm):
  // what CPU runtimes run in int8 (the cpu placement quantizes only these ops' inputs).
  bool compute = false;
  // Moves, reshapes or converts data without arithmetic on values (counted as 0 FLOPs).
  bool no_math = false;
  // Positively homogeneous per channel: op(s * x) = s * op(x) for any positive scale s per
  // channel, channels kept in place (Relu, LeakyRelu, MaxPool, Identity; not SiLU or Sigmoid).
  // Cross-layer equalization (repair/cle.h) may rescale channels across it.
  bool commutes_with_channel_scale = false;
  // Two-input arithmetic (Add, Sub, Mul, Div): carries a value's meaning through arithmetic, and
  // `--exec int8` runs it on codes (QBinary).
  bool binary_arithmetic = false;
  // Its kernel can apply a fake-quant step to its own output (runtime/qdq_fold.h folds a
  // Q -> DQ pair after it into the kernel): Conv, Sigmoid, the binary arithmetic ops, Concat.
  bool fuses_fake_quant = false;
};

// The row for an op (domain "" is ONNX's default domain); defaults for unknown ops.
const OpTraits& op_traits(const std::string& domain, const std::string& op_type);
inline const OpTraits& op_traits(const Node& n) {
  return op_traits(n.domain, n.op_type);
}
// (domain, op) pairs with a row, for the test that every kernel has one.
std::vector<std::pair<std::string, std::string>> ops_with_traits();

// Indices of node inputs that carry tensor data (present or not).
std::vector<size_t> data_input_indices(const Node& node);
// Output elements are input elements for this node (moves_values, and Resize only when its mode
// is nearest).
bool moves_values(const Node& node);
// Rearranges or selects one input's values without combining inputs (moves values, not Concat).
bool is_move_only(const std::string& op_type);

}  // namespace edgeq
