// entropy: TensorRT's calibration (as in MXNet's and ONNX Runtime's entropy calibrators). On the
// histogram of |x| (at most kBins bins), for each candidate threshold bin i >= the number of
// quantization levels L:
//   P = bins[0, i) with the mass beyond i added to its last bin (clipping),
//   Q = bins[0, i) merged into L levels and spread back evenly over the bins that were non-zero,
// both smoothed (zeros -> eps, taken from the non-zeros), and KL(P || Q) computed on their
// normalized forms. The threshold with the smallest divergence wins (ties: the wider one).
// L = 2^(bw-1) for symmetric targets; for asymmetric ones the levels that fall on the positive
// side of [-min(|min|, T), T]. When L reaches the bin count (16 bit) nothing is clipped.
#include <algorithm>
#include <cmath>
#include <limits>

#include "calib/range_scheme.h"

namespace edgeq {
namespace {

constexpr size_t kBins = 2048;
constexpr double kEps = 1e-4;

// MXNet / ORT smooth_distribution: false when every entry is zero or the eps cannot be taken.
bool smooth(std::vector<double>& p) {
  size_t zeros = 0;
  for (double v : p) zeros += v == 0;
  size_t nonzeros = p.size() - zeros;
  if (nonzeros == 0) return false;
  double eps1 = kEps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
  if (eps1 >= 1.0) return false;
  for (double& v : p) v = v == 0 ? kEps : v - eps1;
  for (double v : p)
    if (v <= 0) return false;
  return true;
}

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
  double sp = 0, sq = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    sp += p[i];
    sq += q[i];
  }
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    double pi = p[i] / sp, qi = q[i] / sq;
    kl += pi * std::log(pi / qi);
  }
  return kl;
}

class EntropyScheme : public RangeScheme {
 public:
  std::string name() const override { return "entropy"; }

  Range compute(const Histogram& h, const RangeTarget& t) const override {
    if (h.empty()) return {};
    std::vector<double> bins = abs_bins(h);
    double w = h.bin_width();
    while (bins.size() > kBins) {  // coarsen by pairs: the bins stay aligned at 0
      std::vector<double> half((bins.size() + 1) / 2, 0.0);
      for (size_t i = 0; i < bins.size(); ++i) half[i / 2] += bins[i];
      bins.swap(half);
      w *= 2;
    }
    const size_t n = bins.size();
    const double neg = -std::min(static_cast<double>(h.min()), 0.0);
    auto levels = [&](size_t i) -> size_t {
      if (t.symmetric) return size_t{1} << std::min(t.bitwidth - 1, 40);
      double T = static_cast<double>(i) * w;
      double all = std::ldexp(1.0, std::min(t.bitwidth, 40)) - 1.0;
      return static_cast<size_t>(std::max(1.0, std::floor(all * T / (T + std::min(neg, T)))));
    };

    std::vector<double> suffix(n + 1, 0.0);  // mass in bins [i, n)
    for (size_t i = n; i-- > 0;) suffix[i] = suffix[i + 1] + bins[i];

    double best_kl = std::numeric_limits<double>::infinity();
    size_t best_i = n;
    std::vector<double> p, q;
    for (size_t i = 1; i <= n; ++i) {
      size_t L = levels(i);
      if (L >= i) continue;  // as fine as the histogram: no information lost
      p.assign(bins.begin(), bins.begin() + i);
      p[i - 1] += suffix[i];
      q.assign(i, 0.0);
      size_t merged = i / L;
      for (size_t j = 0; j < L; ++j) {
        size_t start = j * merged, stop = j == L - 1 ? i : start + merged;
        double sum = 0;
        size_t nonzero = 0;
        for (size_t k = start; k < stop; ++k) {
          sum += bins[k];
          nonzero += bins[k] != 0;
        }
        if (nonzero == 0) continue;
        for (size_t k = start; k < stop; ++k)
          if (bins[k] != 0) q[k] = sum / static_cast<double>(nonzero);
      }
      if (!smooth(p) || !smooth(q)) continue;
      double kl = kl_divergence(p, q);
      if (kl <= best_kl) {  // ties go to the wider threshold
        best_kl = kl;
        best_i = i;
      }
    }
    double T = static_cast<double>(best_i) * w;
    if (best_i >= n)
      T = std::max(std::fabs(static_cast<double>(h.min())),
                   std::fabs(static_cast<double>(h.max())));
    return clamp_to_observed(h, {-T, T});
  }
};

}  // namespace

std::unique_ptr<RangeScheme> make_entropy_scheme() {
  return std::make_unique<EntropyScheme>();
}

}  // namespace edgeq
