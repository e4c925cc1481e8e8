// QuantConfig: every choice `edgeq quantize` makes, as data (scheme, range scheme, placement,
// 16-bit names, exclusions, per-tensor overrides). Overrides are applied last.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>

#include "edgeq/choices.h"

namespace edgeq {

// Where Q/DQ pairs go.
//   kOrt: around the ops ONNX Runtime's QDQ quantizer handles (its QLinear/QDQ op registries:
//         Conv, MatMul, Gemm, Add, Mul, Sigmoid, Concat, MaxPool, Resize, Reshape, ...); ops
//         that only move values (Reshape, Transpose, Squeeze, Unsqueeze, Flatten, Resize,
//         MaxPool, Slice, Split) share their input's encoding, as ORT does.
//   kQnn: every float activation gets an encoding, and Concat also shares one encoding across
//         its inputs and output, as HTP toolchains do.
//   kCpu: only the inputs of compute ops (Conv, ConvTranspose, MatMul, Gemm) are quantized, as
//         OpenVINO / NNCF do for CPUs: a Conv's output, SiLU, Sigmoid, elementwise ops, Concat
//         and the decode stay in higher precision, and each value is rounded once, where the
//         next compute op reads it.
// (edgeq::Placement: edgeq/choices.h; its name: edgeq::name(p).)

// 16-bit QuantizeLinear / DequantizeLinear exist in the ONNX domain from opset 21 and in ORT's
// com.microsoft domain before that. kAuto does what ORT's quantizer does: the ONNX domain when
// the model's opset is >= 21, else com.microsoft for the 16-bit Q/DQ nodes. kOpset21 raises the
// model to opset 21 (upgrading Split and Reduce* nodes whose form changed at opset 18).
// (edgeq::Qdq16: edgeq/choices.h)

// One tensor's override (JSON: {"bitwidth": 16, "min": -0.6, "max": 80.6, "symmetric": false},
// any subset, or the string "float" to leave the tensor unquantized).
struct TensorOverride {
  bool is_float = false;
  std::optional<int> bitwidth;
  std::optional<double> min, max;  // both or neither
  std::optional<bool> symmetric;
};

struct QuantConfig {
  int weight_bits = 8;
  int activation_bits = 8;
  bool per_channel_weights = true;
  bool activation_symmetric = false;  // int8/int16 symmetric instead of uint8/uint16 asymmetric
  Placement placement = Placement::kOrt;
  RangeMethod range = RangeMethod::kMinMax;  // calib/range_scheme.h
  double percentile = 0;                     // with kPercentile: P (0: 99.99)
  std::set<std::string> a16;                 // values kept at 16 bit under W8A8 (mixed precision)
  // Values of the YOLO head's pixel-space decode tail (quant/decode_tail.h, filled by the
  // caller): constants of the nodes that write them are kept exact or at 16 bit.
  std::set<std::string> decode_tail;
  std::set<std::string> exclude_nodes;  // node names left in float
  std::map<std::string, TensorOverride> overrides;
  // How 16-bit Q/DQ are written.
  Qdq16 qdq16 = Qdq16::kAuto;
  // 8-bit Conv weight codes that no int16 pair of x86 int8 kernels without VNNI can overflow
  // (encode/saturation_safe.h); needs 8-bit weights and activations.
  bool saturation_safe = false;
  // 8-bit weights with codes within [-64, 64] (ONNX Runtime's reduce_range), for comparison.
  bool reduce_range = false;
};

// The scheme's defaults: 8-bit weights, 8- or 16-bit activations. An out-of-range value throws.
QuantConfig config_for_scheme(Scheme scheme);
// Parses an overrides JSON object; throws naming `what` and the tensor at fault.
std::map<std::string, TensorOverride> parse_overrides(const std::string& json_text,
                                                      const std::string& what);

}  // namespace edgeq
