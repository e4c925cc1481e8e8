// QDQ export: a float Graph + activation encodings -> a standard QDQ ONNX graph.
//   weights (input 1 of Conv / ConvTranspose / Gemm, a constant input of MatMul): stored
//     quantized (symmetric, per channel by default) and read through DequantizeLinear whose
//     output keeps the weight's name;
//     With config.saturation_safe, 8-bit Conv weight codes are made saturation-safe
//     (encode/saturation_safe.h);
//   biases of Conv / Gemm: int32 with scale = input scale * weight scale, zero point 0, when the
//     input activation is quantized;
//   other float constants read by quantized ops: per tensor, on their exact grid at the node's
//     activation width (16 when one of its activations is 16-bit) when one fits
//     (encode/exact_encoding.h), else at 16 bit when the node writes a value of config.decode_tail,
//     else from their own min / max;
//   activations: the producer writes "<v>_QuantizeLinear_Input", then QuantizeLinear ->
//     DequantizeLinear whose output is <v> again, so consumers and graph outputs keep their
//     names; a graph input gets QuantizeLinear -> DequantizeLinear -> "<v>_DequantizeLinear_
//     Output", which its consumers read.
// 16-bit Q/DQ follow config.qdq16. Per-axis DequantizeLinear needs opset 13: lower opsets are
// raised to 13 when nothing else changed form (refused below 13).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "encode/encodings_json.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "ir/graph.h"

namespace edgeq {

struct QdqModel {
  Graph graph;
  EncodingSet encodings;  // activations (as planned) and params (weights, biases, constants)
  // config.saturation_safe: Conv weights and codes changed to keep every int16 pair in range.
  int64_t saturation_safe_convs = 0, saturation_safe_codes = 0;
  std::vector<std::string> warnings;  // what quantize_model found worth a word (value names)
};

// `fixed_weights`: encodings for weights whose values were already put on a grid (weight repair,
// repair/weight_repair.h), used instead of node_weight_encoding().
QdqModel export_qdq(const Graph& g, const QuantPlan& plan,
                    const std::map<std::string, TensorEncoding>& activations,
                    const QuantConfig& config,
                    const std::map<std::string, TensorEncoding>& fixed_weights = {});

// The channel axis of node n's weight (input 1, float constant `w`): 0 for Conv and for Gemm with
// transB, 1 for Gemm without it and for ConvTranspose with group 1, the last axis for MatMul; -1
// (one encoding per tensor) for a grouped ConvTranspose or a weight of rank < 2. Nothing when input
// 1 of this op is not a weight.
std::optional<int64_t> weight_channel_axis(const Node& n, const Tensor& w);
// The encoding export gives node n's weight `w` under `cfg` (weight_encoding: symmetric, per
// channel along weight_channel_axis unless cfg says per tensor, exact grids kept; a Conv's grid
// per channel from saturation_safe_encoding under cfg.saturation_safe).
TensorEncoding node_weight_encoding(const Node& n, const Tensor& w, const QuantConfig& cfg);
// The encodings export_qdq gives the weights (float initializers) of plan's quantized nodes under
// `cfg`, the first such node reading a weight deciding as in export_qdq. They do not depend on
// which activations are at 16 bit: a caller exporting one plan many times (the mixed-precision
// search) finds them once and passes them as `fixed_weights`.
std::map<std::string, TensorEncoding> plan_weight_encodings(const Graph& g, const QuantPlan& plan,
                                                            const QuantConfig& cfg);

}  // namespace edgeq
