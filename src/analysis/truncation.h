// Truncation: an activation encoding that does not cover the value's observed FP32 range.
//
// A value x saturates when x / scale rounds past the grid, i.e. beyond the encoding's max (min)
// by more than half a step. Clipped mass = the fraction of calibration values beyond those edges
// (from the histogram). Overshoots of at most one step are rounding, not truncation, and are
// not reported. Severity from the clipped distance relative to the encoding's range: error at
// >= 5% (with >= 0.01% of the values), warning at >= 1% (or >= 0.1% with >= 0.1% of the values),
// else info. For values of the YOLO head with a pixel meaning (ir/head_decode.h) the
// finding names the pixel where outputs pin: encoding max x stride for grid-unit values (e.g.
// 40.69 x 8 = 325.5 px), the max itself for pixel-space values; a pin inside the input that
// clips by a pixel or more is an error, one outside it at least a warning.
// A SiLU input clipped below where its quantized gate closes is not truncated: past the Mul
// nothing sees those values (quant/silu_gate.h; the doctor passes them as unseen_below).
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "calib/stats.h"
#include "encode/weight_encoding.h"
#include "ir/head_decode.h"

namespace edgeq {

struct Clipping {
  double below = 0, above = 0;      // counts beyond the saturation edges
  double fraction = 0;              // (below + above) / count
  double over_lo = 0, over_hi = 0;  // how far the observed min / max lie beyond the encoding
  double steps_over = 0;            // max(over_lo, over_hi) / scale
};

// Values below `unseen_below` count as covered: nothing downstream sees them (a SiLU input below
// where its quantized gate closes, quant/silu_gate.h).
Clipping clipping(const Encoding& e, const Histogram& h, double unseen_below = -HUGE_VAL);

// `input_size`: the model's input width in pixels (pins beyond it are not reachable).
std::vector<Finding> truncation_findings(const std::map<std::string, TensorEncoding>& encodings,
                                         const Stats& stats,
                                         const std::map<std::string, PixelMeaning>& pixels,
                                         double input_size,
                                         const std::map<std::string, double>& unseen_below = {});

}  // namespace edgeq
