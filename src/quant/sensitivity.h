// Sensitivity: quantize one value (or one block of values, quant/value_blocks.h) at a time (its
// own encoding from its calibration histogram, at `bits`, everything else FP32) by inserting Q/DQ
// pairs, run a few images, and rank by what users lose: for a YOLO output, the detection loss
// against the FP32 run (eval/detection_loss.h: boxes and keypoints in pixels, scores, anchors
// across the threshold, each normalised), else the relative L2 error of the output. The most
// sensitive values are the ones to keep at 16 bit under W8A8 (edgeq/mixed_set.h).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calib/stats.h"
#include "core/tensor.h"
#include "edgeq/choices.h"
#include "edgeq/mixed_set.h"
#include "eval/detection_loss.h"
#include "ir/graph.h"

namespace edgeq {

struct SensitivityOptions {
  int bits = 8;
  RangeMethod range = RangeMethod::kMinMax;  // calib/range_scheme.h
  std::string output;                        // "" = the first graph output
  // Called after each value with (done, total, value).
  std::function<void(size_t, size_t, const std::string&)> progress;
};

struct Sensitivity {
  std::string value;         // the value, or the block's name
  double rel_l2 = 0;         // of the output, mean over the images
  double loss = 0;           // what the ranking sorts by: the detection loss, else rel_l2
  DetectionLoss detections;  // for a YOLO output
};

// Most sensitive first. `values` must all have statistics.
std::vector<Sensitivity> rank_sensitivity(const Graph& fp32, const Stats& stats,
                                          const std::vector<std::string>& values,
                                          const std::vector<std::map<std::string, Tensor>>& inputs,
                                          const SensitivityOptions& opt);
// The same per block of values (each block quantized at once).
std::vector<Sensitivity> rank_block_sensitivity(
    const Graph& fp32, const Stats& stats, const std::vector<std::string>& values,
    const std::vector<std::map<std::string, Tensor>>& inputs, const SensitivityOptions& opt);

// The top `percent` % of the ranking (at least one value when any has error > 0) as a mixed set.
MixedSet mixed_set_from_ranking(const std::vector<Sensitivity>& ranking, double percent);

// ||test - ref||_2 / ||ref||_2 (0 when both are 0).
double relative_l2(const Tensor& test, const Tensor& ref);

}  // namespace edgeq
