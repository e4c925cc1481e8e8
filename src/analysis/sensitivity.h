// Sensitivity: quantize one value at a time (its own encoding from its calibration histogram,
// at `bits`, everything else FP32) by inserting one Q/DQ pair, run a few images, and rank the
// values by the relative L2 error of one output against the FP32 run. The most sensitive values
// are the ones to keep at 16 bit under W8A8 (analysis/mixed_set.h).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/mixed_set.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "quant/stats.h"

namespace edgeq {

struct SensitivityOptions {
  int bits = 8;
  std::string range = "minmax";  // range scheme spec (quant/range_scheme.h)
  std::string output;            // "" = the first graph output
  // Called after each value with (done, total, value).
  std::function<void(size_t, size_t, const std::string&)> progress;
};

struct Sensitivity {
  std::string value;
  double rel_l2 = 0;  // mean over the images
};

// Most sensitive first. `values` must all have statistics.
std::vector<Sensitivity> rank_sensitivity(const Graph& fp32, const Stats& stats,
                                          const std::vector<std::string>& values,
                                          const std::vector<std::map<std::string, Tensor>>& inputs,
                                          const SensitivityOptions& opt);

// The top `percent` % of the ranking (at least one value when any has error > 0) as a mixed set.
MixedSet mixed_set_from_ranking(const std::vector<Sensitivity>& ranking, double percent);

// ||test - ref||_2 / ||ref||_2 (0 when both are 0).
double relative_l2(const Tensor& test, const Tensor& ref);

}  // namespace edgeq
