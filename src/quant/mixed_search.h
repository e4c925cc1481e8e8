// Automatic mixed precision under a budget (`quantize --auto P`): which activation values of a
// W8A8 model to keep at 16 bit, at most P % of the values with an encoding (those the base
// configuration already keeps at 16 bit, the decode tail say, included), found on real runs of
// candidate QDQ models (simulation, runtime/qdq_fold.h) over validation images and judged by what
// users lose (eval/detection_loss.h) against the FP32 model's outputs, each group (box, keypoints,
// scores, anchors across the threshold) relative to the base configuration's:
//   1. the base model's loss (every group's unit);
//   2. each block of values (quant/value_blocks.h) ranked by the loss its rounding causes
//      alone: the model with every other value at 16 bit against the model with all at 16 bit
//      (the floor), on at most 16 of the images. Promoting one block of the W8A8 model instead
//      removes one of hundreds of rounding errors that add like independent noise, a change the
//      images' own noise drowns: on yolo11n-pose that ranking picked head branches and a gate
//      "kept only if a run with it is better" discarded promotions the held-out split rewards;
//   3. greedy by gain per value: every block with a gain that fits the budget, then single values
//      of the best blocks that did not fit whole (at most 24, each ranked alone the same way);
//   4. the chosen set evaluated step by step on all images, for the log and the result's loss.
// Every ranking and step is a real evaluation; the log records each (what was tried, loss before
// and after). Deterministic for given inputs, whatever the number of threads.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "calib/stats.h"
#include "core/tensor.h"
#include "encode/quant_config.h"
#include "eval/detection_loss.h"
#include "ir/graph.h"

namespace edgeq {

struct MixedSearchOptions {
  double budget_percent = 10;  // of the values with an encoding, at 16 bit in the end
  int threads = 0;             // images evaluated at once, each on one thread (0: all cores)
  // One line per evaluation, with what was tried and an ETA.
  std::function<void(const std::string&)> progress;
};

struct MixedSearchStep {
  // "base"; "floor" (every value at 16 bit); "block" / "value" (ranked: the block or value alone at
  // 8 bit, loss_before the floor's); "step" (a promotion of the chosen set, on every image)
  std::string phase;
  std::string tried;  // block or value name
  size_t values = 0;  // values it promotes (ranked: values at 8 bit beyond the floor)
  double loss_before = 0, loss_after = 0;
  bool kept = false;      // steps of the chosen set (and the base)
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
