// Automatic mixed precision under a budget (`quantize --auto P`): which activation values of a
// W8A8 model to keep at 16 bit, at most P % of the values with an encoding (those the base
// configuration already keeps at 16 bit, the decode tail say, included), found on real runs of
// candidate QDQ models (simulation, runtime/qdq_fold.h) over validation images and judged by what
// users lose (eval/detection_loss.h) against the FP32 model's outputs, each group (box, keypoints,
// scores, anchors across the threshold) relative to the base configuration's:
//   1. the base model's loss;
//   2. each block of values (analysis/value_blocks.h) promoted alone: its gain (on at most 16 of
//      the images: ranking needs less precision than deciding);
//   3. greedy by gain per value: a block joins when it fits the budget and a run of the set with
//      it lowers the loss; then values of the best blocks that did not fit, one at a time, the
//      same way, while budget remains.
// Every candidate is a real evaluation; the log records each (what was tried, loss before and
// after, kept or not). Deterministic for given inputs, whatever the number of threads.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "eval/detection_loss.h"
#include "ir/graph.h"
#include "quant/quant_config.h"
#include "quant/stats.h"

namespace edgeq {

struct MixedSearchOptions {
  double budget_percent = 10;  // of the values with an encoding, at 16 bit in the end
  int threads = 0;             // images evaluated at once, each on one thread (0: all cores)
  // One line per evaluation, with what was tried and an ETA.
  std::function<void(const std::string&)> progress;
};

struct MixedSearchStep {
  std::string phase;  // "base", "block", "greedy", "value"
  std::string tried;  // block or value name
  size_t values = 0;  // values it promotes
  double loss_before = 0, loss_after = 0;
  bool kept = false;
  DetectionLoss metrics;  // of the evaluated set
};

struct MixedSearchResult {
  std::set<std::string> a16;  // the chosen set beyond the base configuration's
  size_t values16 = 0;        // values at 16 bit with the set (base ones included)
  size_t values = 0;          // values with an encoding
  double base_loss = 0, loss = 0;
  DetectionLoss base_metrics, metrics;
  std::vector<MixedSearchStep> log;
};

// `base`: the W8A8 configuration to start from (its a16 kept); `images`: validation inputs of the
// model's one image input, not the calibration images. Throws for a budget outside (0, 100], no
// images, or a model without a YOLO output.
MixedSearchResult search_mixed_precision(const Graph& fp32, const Stats& stats,
                                         const QuantConfig& base, const std::vector<Tensor>& images,
                                         const MixedSearchOptions& opt);

}  // namespace edgeq
