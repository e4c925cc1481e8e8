// Ranges: each value's FP32 range from calibration statistics (min, max, p0.01 / p99.99, span and
// the step an encoding of that span gets at 8 and 16 bit), and the findings they alone support:
// pixel-space values too coarse at 8 bit, long tails, non-finite values, and the amplitude ratio
// of pooled tap blocks (tap_avgN / tap_maxN of `edgeq cut`).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "calib/stats.h"
#include "encode/weight_encoding.h"
#include "ir/head_decode.h"

namespace edgeq {

struct ValueRange {
  std::string value;
  double min = 0, max = 0, p0001 = 0, p9999 = 0;
  double span = 0;  // of [min, max] widened to include 0, as an encoding is
  double step8 = 0, step16 = 0;
  uint64_t count = 0, non_finite = 0;
};

ValueRange value_range(const std::string& value, const Histogram& h);

// Findings from ranges. `encodings` (may be empty) tells which values already run at 16 bit.
std::vector<Finding> range_findings(const Stats& stats,
                                    const std::map<std::string, PixelMeaning>& pixels,
                                    const std::map<std::string, TensorEncoding>& encodings);

// Tap blocks: spans of the values named tap_avgN / tap_maxN; one finding when they differ > 3x.
std::vector<Finding> tap_block_findings(const Stats& stats);

}  // namespace edgeq
