#include "calib/range_scheme.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace edgeq {

std::vector<double> abs_bins(const Histogram& h) {
  if (h.empty()) return {};
  const auto& bins = h.bins();
  int64_t first = h.first_bin(), last = first + static_cast<int64_t>(bins.size()) - 1;
  // Global bin j >= 0 holds |x| in [j w, (j+1) w); j < 0 holds |x| in (-(j+1) w, -j w].
  int64_t top = std::max(last, -first - 1);
  std::vector<double> out(static_cast<size_t>(std::max<int64_t>(top, 0) + 1), 0.0);
  for (size_t i = 0; i < bins.size(); ++i) {
    int64_t j = first + static_cast<int64_t>(i);
    out[j >= 0 ? j : -j - 1] += static_cast<double>(bins[i]);
  }
  return out;
}

Range clamp_to_observed(const Histogram& h, Range r) {
  double lo = h.min(), hi = h.max();
  r.lo = std::min(std::max(r.lo, lo), hi);
  r.hi = std::min(std::max(r.hi, lo), hi);
  if (r.lo > r.hi) std::swap(r.lo, r.hi);
  return r;
}

std::unique_ptr<RangeScheme> make_range_scheme(RangeMethod method, double percentile) {
  switch (method) {
    case RangeMethod::kMinMax:
      return make_minmax_scheme();
    case RangeMethod::kPercentile: {
      const double p = percentile != 0 ? percentile : 99.99;
      EDGEQ_CHECK(p > 0 && p <= 100, "range percentile: ", p, " is not in (0, 100]");
      return make_percentile_scheme(p);
    }
    case RangeMethod::kEntropy:
      return make_entropy_scheme();
    case RangeMethod::kMse:
      return make_mse_scheme();
  }
  fail("range: ", edgeq::name(method));  // an out-of-range value: name() throws
}

}  // namespace edgeq
