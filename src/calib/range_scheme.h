// Range schemes: how a value's encoding range is chosen from its calibration histogram.
//
// Like ONNX Runtime's calibrators, collection and range choice are apart: every scheme reads the
// same mergeable Histogram (calib/histogram.h), so one calibration pass serves all schemes.
//   minmax             the observed [min, max]
//   percentile[:P]     drops (100 - P)% of the values, half from each tail (asymmetric) or from
//                      |x| (symmetric); P defaults to 99.99
//   entropy            TensorRT's KL-divergence threshold search on the |x| histogram
//   mse                minimizes the expected quantize-dequantize squared error (clipping error
//                      plus uniform rounding noise step^2 / 12) for the target bit width
// Every range lies within the observed [min, max] (the encoding then widens it to include 0).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "calib/histogram.h"
#include "edgeq/choices.h"

namespace edgeq {

struct Range {
  double lo = 0.0;
  double hi = 0.0;
};

struct RangeTarget {
  int bitwidth = 8;
  bool symmetric = false;
};

class RangeScheme {
 public:
  virtual ~RangeScheme() = default;
  virtual std::string name() const = 0;
  // An empty histogram gives [0, 0].
  virtual Range compute(const Histogram& h, const RangeTarget& target) const = 0;
};

std::unique_ptr<RangeScheme> make_minmax_scheme();
std::unique_ptr<RangeScheme> make_percentile_scheme(double percentile);
std::unique_ptr<RangeScheme> make_entropy_scheme();
std::unique_ptr<RangeScheme> make_mse_scheme();
// The scheme of `method`; `percentile` (kPercentile only) is P in (0, 100], 0: 99.99. Its name()
// is what reports write: "minmax", "percentile:99.9", "entropy", "mse". An out-of-range method or
// P throws.
std::unique_ptr<RangeScheme> make_range_scheme(RangeMethod method, double percentile = 0);

// Shared by the schemes: counts of |x| in bins [i * w, (i + 1) * w), w = h.bin_width(). Exact,
// because the histogram's bins are aligned at 0.
std::vector<double> abs_bins(const Histogram& h);
// Clamps [lo, hi] to the observed [min, max].
Range clamp_to_observed(const Histogram& h, Range r);

}  // namespace edgeq
