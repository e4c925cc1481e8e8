// mse: the range that minimizes the expected squared quantize-dequantize error over the
// histogram for the target bit width (the idea of Qualcomm's mse_minimizer / tf_enhanced):
//   E(lo, hi) = N_inside * step^2 / 12  +  sum_{x < lo} (x - lo)^2  +  sum_{x > hi} (x - hi)^2
// with step = (hi - lo) / (2^bw - 1) (asymmetric) or T / (2^(bw-1) - 1) on |x| (symmetric).
// Values sit at their bin centres; prefix sums make each candidate O(log bins). Candidates:
// a grid of fractions of the observed range (with 0 kept inside), then a finer grid around the
// best one.
#include <algorithm>
#include <cmath>
#include <limits>

#include "calib/range_scheme.h"

namespace edgeq {
namespace {

constexpr int kGrid = 100;
constexpr int kRefine = 20;

// Values (bin centres) sorted ascending with prefix sums of count, sum x and sum x^2.
struct Moments {
  std::vector<double> x, c0, c1, c2;  // c*[i] = sums over the first i centres

  void add(double xi, double count) {
    if (count == 0) return;
    if (x.empty()) c0 = c1 = c2 = {0.0};
    x.push_back(xi);
    c0.push_back(c0.back() + count);
    c1.push_back(c1.back() + count * xi);
    c2.push_back(c2.back() + count * xi * xi);
  }
  double total() const { return c0.empty() ? 0.0 : c0.back(); }
  // Sum of (x - a)^2 over x < a, and over x > b.
  double below(double a) const {
    size_t k = std::lower_bound(x.begin(), x.end(), a) - x.begin();
    return c2[k] - 2 * a * c1[k] + a * a * c0[k];
  }
  double above(double b) const {
    size_t k = std::upper_bound(x.begin(), x.end(), b) - x.begin();
    double n = c0.back() - c0[k], s1 = c1.back() - c1[k], s2 = c2.back() - c2[k];
    return s2 - 2 * b * s1 + b * b * n;
  }
  double inside(double a, double b) const {
    size_t lo = std::lower_bound(x.begin(), x.end(), a) - x.begin();
    size_t hi = std::upper_bound(x.begin(), x.end(), b) - x.begin();
    return c0[hi] - c0[lo];
  }
};

class MseScheme : public RangeScheme {
 public:
  std::string name() const override { return "mse"; }

  Range compute(const Histogram& h, const RangeTarget& t) const override {
    if (h.empty()) return {};
    return t.symmetric ? symmetric(h, t.bitwidth) : asymmetric(h, t.bitwidth);
  }

 private:
  static Range asymmetric(const Histogram& h, int bitwidth) {
    Moments m;
    for (size_t i = 0; i < h.bins().size(); ++i)
      m.add(0.5 * (h.bin_lo(i) + h.bin_hi(i)), static_cast<double>(h.bins()[i]));
    const double lo0 = std::min(static_cast<double>(h.min()), 0.0);
    const double hi0 = std::max(static_cast<double>(h.max()), 0.0);
    if (hi0 - lo0 <= 0) return {h.min(), h.max()};
    const double levels = std::ldexp(1.0, bitwidth) - 1.0;
    auto error = [&](double a, double b) {
      double step = (b - a) / levels;
      return m.inside(a, b) * step * step / 12.0 + m.below(a) + m.above(b);
    };
    // Fractions fa, fb in (0, 1] of the negative and positive extents.
    double best = std::numeric_limits<double>::infinity(), best_fa = 1, best_fb = 1;
    auto scan = [&](double fa0, double fa1, double fb0, double fb1, int n) {
      for (int i = 0; i <= n; ++i) {
        double fa = lo0 < 0 ? fa0 + (fa1 - fa0) * i / n : 1.0;
        if (fa <= 0 || fa > 1) continue;
        for (int j = 0; j <= n; ++j) {
          double fb = hi0 > 0 ? fb0 + (fb1 - fb0) * j / n : 1.0;
          if (fb <= 0 || fb > 1) continue;
          double e = error(lo0 * fa, hi0 * fb);
          if (e < best || (e == best && fa + fb > best_fa + best_fb)) {
            best = e;
            best_fa = fa;
            best_fb = fb;
          }
          if (hi0 <= 0) break;
        }
        if (lo0 >= 0) break;
      }
    };
    scan(0.0, 1.0, 0.0, 1.0, kGrid);
    double d = 1.0 / kGrid;
    scan(best_fa - d, best_fa + d, best_fb - d, best_fb + d, kRefine);
    return clamp_to_observed(h, {lo0 * best_fa, hi0 * best_fb});
  }

  static Range symmetric(const Histogram& h, int bitwidth) {
    std::vector<double> bins = abs_bins(h);
    const double w = h.bin_width();
    const double amax =
        std::max(std::fabs(static_cast<double>(h.min())), std::fabs(static_cast<double>(h.max())));
    if (amax <= 0) return {h.min(), h.max()};
    Moments m;
    for (size_t i = 0; i < bins.size(); ++i)
      m.add(std::min((static_cast<double>(i) + 0.5) * w, amax), bins[i]);
    const double half_levels = std::ldexp(1.0, bitwidth - 1) - 1.0;
    auto error = [&](double T) {
      double step = T / half_levels;
      return m.inside(0.0, T) * step * step / 12.0 + m.above(T);
    };
    double best = std::numeric_limits<double>::infinity(), best_f = 1;
    auto scan = [&](double f0, double f1, int n) {
      for (int i = 0; i <= n; ++i) {
        double f = f0 + (f1 - f0) * i / n;
        if (f <= 0 || f > 1) continue;
        double e = error(amax * f);
        if (e < best || (e == best && f > best_f)) {
          best = e;
          best_f = f;
        }
      }
    };
    scan(0.0, 1.0, kGrid * kGrid);  // one dimension: afford the fine grid directly
    return clamp_to_observed(h, {-amax * best_f, amax * best_f});
  }
};

}  // namespace

std::unique_ptr<RangeScheme> make_mse_scheme() {
  return std::make_unique<MseScheme>();
}

}  // namespace edgeq
