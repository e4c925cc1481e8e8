// Weight repair: training-free fixes of the error that rounding Conv weights causes, applied to the
// float graph before QDQ export, from the conv inputs of a calibration pass
// (repair/conv_input_pass.h):
//   GPTQ rounding (repair/gptq.h): the codes of each quantized Conv chosen with their errors
//     compensated on the conv's calibration inputs, on the grid export would use;
//   bias correction (repair/bias_correction.h): the mean output shift of the (final) rounding
//     taken out of the bias.
// The repaired weights are stored on their grid, and their encodings are handed to export_qdq
// (fixed_weights), so export stores exactly the codes repair chose.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "encode/weight_encoding.h"
#include "ir/graph.h"
#include "repair/conv_input_pass.h"
#include "repair/gptq.h"

namespace edgeq {

struct WeightRepairOptions {
  bool gptq = false;
  bool bias_correction = false;
  GptqOptions gptq_options;
  int threads = 0;  // 0: all cores

  bool any() const { return gptq || bias_correction; }
};

// Whether a run with calibration images rounds weights with GPTQ unless told otherwise: under W8A16
// (8-bit weights, 16-bit activations). Measured on held-out images (docs/quantization.md: Weight
// repair): with 16-bit activations GPTQ lowered output error and box / keypoint error on every
// split; under W8A8 activation rounding dominates and the detections moved within the noise of
// changing the calibration images, so W8A8 runs it only when asked.
bool gptq_by_default(const QuantConfig& config);

// What repair_weights did, for the summary line.
struct WeightRepairSummary {
  int convs = 0;                     // convs repaired
  int64_t rows = 0, rows_exact = 0;  // GPTQ: output channels, and those left exact
  int64_t codes_changed = 0;         // GPTQ: weights whose code differs from nearest rounding
  double max_bias_shift = 0;         // bias correction: largest |b' - b|
};

// The Convs that weight repair applies to, in graph order, with what each needs from the
// calibration pass: the quantized Convs (plan) whose weight is a float32 rank-4 initializer read by
// no other node.
std::vector<ConvInputRequest> weight_repair_requests(const Graph& g, const QuantPlan& plan,
                                                     const WeightRepairOptions& opt);

// Rewrites the weights (GPTQ: onto their grid) and biases (bias correction; a conv without a bias
// gets one) of the convs `moments` names, all of weight_repair_requests(), in `g`. Returns the
// encodings of the rewritten weights, for export_qdq's fixed_weights; adds its counts to
// `summary`.
std::map<std::string, TensorEncoding> repair_weights(
    Graph& g, const QuantPlan& plan, const QuantConfig& config, const WeightRepairOptions& opt,
    const std::map<std::string, ConvInputMoments>& moments, WeightRepairSummary* summary = nullptr);

}  // namespace edgeq
