#include "ir/op_traits.h"

#include <map>

namespace edgeq {
namespace {

// Flags, combined with | in the table below.
enum : unsigned {
  kView = 1 << 0,         // view (implies same values and moves values)
  kSame = 1 << 1,         // same values (implies moves values)
  kMoves = 1 << 2,        // moves values
  kElementwise = 1 << 3,  // elementwise (implies NHWC)
  kOrt = 1 << 4,          // ORT's QDQ quantizer wraps it
  kOrtShares = 1 << 5,    // ... and its output shares its input's encoding there
  kNhwc = 1 << 6,         // runs NHWC
  kCompute = 1 << 7,      // multiply-accumulates: Conv, ConvTranspose, MatMul, Gemm
  kNoMath = 1 << 8,       // moves or reshapes data, no arithmetic on values (0 FLOPs)
  kScales = 1 << 9,       // commutes with a positive per-channel scale
  kBinary = 1 << 10,      // two-input arithmetic (Add, Sub, Mul, Div)
  kFusesFq = 1 << 11,     // its kernel applies a fake-quant step to its output
};

struct Row {
  const char* op;
  DataInputs data;
  unsigned flags;
};

using D = DataInputs;

// ONNX's default domain. ORT columns follow ONNX Runtime's python/tools/quantization/registry.py
// (QLinearOpsRegistry and QDQRegistry).
const Row kOnnxRows[] = {
    // op                      data           flags
    {"Abs", D::kAll, kElementwise},
    {"Add", D::kAll, kElementwise | kOrt | kBinary | kFusesFq},
    {"ArgMax", D::kFirst, kOrt},
    {"AveragePool", D::kFirst, kOrt | kNhwc},
    {"BatchNormalization", D::kFirst, kOrt},
    {"Cast", D::kNone, kNoMath},
    {"Clip", D::kFirst, kElementwise | kOrt},
    {"Concat", D::kAll, kMoves | kOrt | kNhwc | kNoMath | kFusesFq},
    {"Constant", D::kNone, kNoMath},
    {"ConstantOfShape", D::kNone, kNoMath},
    {"Conv", D::kWeighted, kOrt | kNhwc | kCompute | kFusesFq},
    {"ConvTranspose", D::kWeighted, kOrt | kCompute},
    {"DequantizeLinear", D::kFirst, kNoMath},
    {"DepthToSpace", D::kFirst, kMoves | kNoMath},
    {"Div", D::kAll, kElementwise | kBinary | kFusesFq},
    {"Exp", D::kAll, kElementwise},
    {"Expand", D::kFirst, kMoves | kNoMath},
    {"Flatten", D::kFirst, kView | kOrtShares | kNoMath},
    {"Gather", D::kFirst, kMoves | kOrt | kNoMath},
    {"GatherElements", D::kFirst, kMoves | kOrt},
    {"Gemm", D::kWeighted, kOrt | kCompute},
    {"GlobalAveragePool", D::kFirst, kOrt},
    {"GlobalMaxPool", D::kFirst, kMoves},
    {"Identity", D::kFirst, kView | kNoMath | kScales},
    {"InstanceNormalization", D::kFirst, kOrt},
    {"LayerNormalization", D::kFirst, kOrt},
    {"HardSigmoid", D::kFirst, kElementwise},
    {"HardSwish", D::kFirst, kElementwise},
    {"LeakyRelu", D::kFirst, kElementwise | kOrt | kScales},
    {"LogSoftmax", D::kFirst, 0},
    {"MatMul", D::kAll, kOrt | kCompute},
    {"MaxPool", D::kFirst, kMoves | kOrt | kOrtShares | kNhwc | kScales},
    {"Mul", D::kAll, kElementwise | kOrt | kBinary | kFusesFq},
    {"Neg", D::kAll, kElementwise},
    {"NonZero", D::kNone, 0},
    {"Pad", D::kFirst, kOrt | kNoMath},
    {"Pow", D::kAll, 0},
    {"QuantizeLinear", D::kFirst, kNoMath},
    {"Range", D::kNone, kNoMath},
    {"ReduceMax", D::kFirst, 0},
    {"ReduceMean", D::kFirst, 0},
    {"ReduceSum", D::kFirst, 0},
    {"Relu", D::kFirst, kElementwise | kOrt | kScales},
    {"Reshape", D::kFirst, kView | kOrt | kOrtShares | kNoMath},
    {"Resize", D::kFirst, kMoves | kOrt | kOrtShares | kNhwc},  // moves values when nearest
    {"Shape", D::kNone, kNoMath},
    {"Sigmoid", D::kFirst, kElementwise | kOrt | kFusesFq},
    {"Size", D::kNone, 0},
    {"Slice", D::kFirst, kMoves | kOrt | kOrtShares | kNoMath},
    {"Softmax", D::kFirst, kOrt},
    {"SpaceToDepth", D::kFirst, kMoves | kNoMath},
    {"Split", D::kFirst, kMoves | kOrt | kOrtShares | kNhwc | kNoMath},
    {"Sqrt", D::kAll, kElementwise},
    {"Squeeze", D::kFirst, kView | kOrt | kOrtShares | kNoMath},
    {"Sub", D::kAll, kElementwise | kBinary | kFusesFq},
    {"Tanh", D::kFirst, kElementwise},
    {"Tile", D::kFirst, kMoves | kNoMath},
    {"TopK", D::kFirst, 0},
    {"Transpose", D::kFirst, kSame | kOrt | kOrtShares | kNoMath},
    {"Unsqueeze", D::kFirst, kView | kOrt | kOrtShares | kNoMath},
    {"Upsample", D::kFirst, kNoMath},
    {"Where", D::kWhere, kOrt},
};

// The executor's own ops (QDQ folding in the runtime layer) and ORT's contrib Q/DQ.
const Row kEdgeqRows[] = {
    {"FakeQuant", D::kFirst, kElementwise},
    // --exec int8 (int8 lowering in the runtime layer)
    {"Quantize", D::kFirst, kElementwise},
    {"Dequantize", D::kFirst, kElementwise},
    {"QLut", D::kAll, kElementwise},
    {"QBinary", D::kAll, kElementwise},
    {"QConv", D::kWeighted, kNhwc},
};
const Row kMicrosoftRows[] = {
    {"QuantizeLinear", D::kFirst, 0},
    {"DequantizeLinear", D::kFirst, 0},
};

OpTraits to_traits(const Row& r) {
  OpTraits t;
  t.data = r.data;
  t.view = r.flags & kView;
  t.same_values = t.view || (r.flags & kSame);
  t.moves_values = t.same_values || (r.flags & kMoves);
  t.elementwise = r.flags & kElementwise;
  t.ort_quantizes = r.flags & kOrt;
  t.ort_shares_encoding = r.flags & kOrtShares;
  t.nhwc = t.elementwise || (r.flags & kNhwc);
  t.compute = r.flags & kCompute;
  t.no_math = r.flags & kNoMath;
  t.commutes_with_channel_scale = r.flags & kScales;
  t.binary_arithmetic = r.flags & kBinary;
  t.fuses_fake_quant = r.flags & kFusesFq;
  return t;
}

using Table = std::map<std::pair<std::string, std::string>, OpTraits>;

const Table& table() {
  static const Table t = [] {
    Table m;
    for (const Row& r : kOnnxRows) m[{"", r.op}] = to_traits(r);
    for (const Row& r : kEdgeqRows) m[{"edgeq", r.op}] = to_traits(r);
    for (const Row& r : kMicrosoftRows) m[{"com.microsoft", r.op}] = to_traits(r);
    return m;
  }();
  return t;
}

}  // namespace

const OpTraits& op_traits(const std::string& domain, const std::string& op_type) {
  static const OpTraits unknown;
  auto it = table().find({domain, op_type});
  return it == table().end() ? unknown : it->second;
}

std::vector<std::pair<std::string, std::string>> ops_with_traits() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : table()) out.push_back(kv.first);
  return out;
}

std::vector<size_t> data_input_indices(const Node& node) {
  switch (op_traits(node).data) {
    case DataInputs::kFirst:
    case DataInputs::kWeighted:
      return {0};
    case DataInputs::kWhere:
      return {1, 2};
    case DataInputs::kNone:
      return {};
    case DataInputs::kAll:
      break;
  }
  std::vector<size_t> all;
  for (size_t i = 0; i < node.inputs.size(); ++i) all.push_back(i);
  return all;
}

bool moves_values(const Node& node) {
  if (!op_traits(node).moves_values) return false;
  return node.op_type != "Resize" || node.attr_string("mode", "nearest") == "nearest";
}

bool is_move_only(const std::string& op_type) {
  return op_traits("", op_type).moves_values && op_type != "Concat";
}

}  // namespace edgeq
