// percentile: drops the (100 - P)% most extreme values. Asymmetric targets drop half from each
// tail (as ONNX Runtime's percentile calibrator does); symmetric ones drop them from |x|.
#include <algorithm>
#include <cstdio>

#include "calib/range_scheme.h"

namespace edgeq {
namespace {

// Value below which a fraction q of |x| lies, linear inside a bin.
double abs_quantile(const Histogram& h, double q) {
  std::vector<double> bins = abs_bins(h);
  double total = 0;
  for (double c : bins) total += c;
  double target = q * total, cum = 0, w = h.bin_width();
  for (size_t i = 0; i < bins.size(); ++i) {
    if (bins[i] > 0 && cum + bins[i] >= target)
      return (static_cast<double>(i) + (target - cum) / bins[i]) * w;
    cum += bins[i];
  }
  return bins.size() * w;
}

class PercentileScheme : public RangeScheme {
 public:
  explicit PercentileScheme(double p) : p_(p) {}
  std::string name() const override {
    char buf[48];
    std::snprintf(buf, sizeof buf, "percentile:%g", p_);
    return buf;
  }
  Range compute(const Histogram& h, const RangeTarget& t) const override {
    if (h.empty()) return {};
    if (t.symmetric) {
      double m = abs_quantile(h, p_ / 100.0);
      return clamp_to_observed(h, {-m, m});
    }
    double tail = (100.0 - p_) / 200.0;
    return clamp_to_observed(h, {h.quantile(tail), h.quantile(1.0 - tail)});
  }

 private:
  double p_;
};

}  // namespace

std::unique_ptr<RangeScheme> make_percentile_scheme(double percentile) {
  return std::make_unique<PercentileScheme>(percentile);
}

}  // namespace edgeq
