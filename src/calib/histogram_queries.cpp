// Reading a histogram: quantiles, and the count and binned mass below or above a value (the range
// schemes' and the doctor's questions); equality.
#include <algorithm>

#include "calib/histogram.h"

namespace edgeq {

double Histogram::quantile(double q) const {
  if (count_ == 0) return 0.0;
  if (q <= 0) return min_;
  if (q >= 1) return max_;
  double target = q * static_cast<double>(binned_);
  double cum = 0;
  for (size_t i = 0; i < bins_.size(); ++i) {
    double c = static_cast<double>(bins_[i]);
    if (c > 0 && cum + c >= target) {
      double frac = (target - cum) / c;
      return bin_lo(i) + frac * (bin_hi(i) - bin_lo(i));
    }
    cum += c;
  }
  return max_;
}

double Histogram::count_per_binned() const {
  return binned_ == 0 ? 0.0 : static_cast<double>(count_) / static_cast<double>(binned_);
}

// When sampled, the bins may miss the extremes; min and max are exact, so at least one value lies
// below any lo > min (above any hi < max).
double Histogram::count_below(double lo) const {
  if (lo > max_) return static_cast<double>(count_);
  double n = mass_below(lo) * count_per_binned();
  return sampled_ && lo > min_ ? std::max(n, 1.0) : n;
}

double Histogram::count_above(double hi) const {
  if (hi < min_) return static_cast<double>(count_);
  double n = mass_above(hi) * count_per_binned();
  return sampled_ && hi < max_ ? std::max(n, 1.0) : n;
}

double Histogram::mass_below(double lo) const {
  if (count_ == 0 || lo <= min_) return 0.0;
  if (lo > max_) return static_cast<double>(binned_);
  double n = 0;
  for (size_t i = 0; i < bins_.size(); ++i) {
    double a = bin_lo(i), b = bin_hi(i), c = static_cast<double>(bins_[i]);
    if (b <= a) {  // zero-width bin (at min or max): all its values equal a
      if (a >= lo) break;
      n += c;
    } else if (b <= lo) {
      n += c;
    } else {
      if (a < lo) n += c * (lo - a) / (b - a);
      break;
    }
  }
  return n;
}

double Histogram::mass_above(double hi) const {
  if (count_ == 0 || hi >= max_) return 0.0;
  if (hi < min_) return static_cast<double>(binned_);
  double n = 0;
  for (size_t k = bins_.size(); k-- > 0;) {
    double a = bin_lo(k), b = bin_hi(k), c = static_cast<double>(bins_[k]);
    if (b <= a) {  // zero-width bin (at min or max): all its values equal a
      if (a <= hi) break;
      n += c;
    } else if (a >= hi) {
      n += c;
    } else {
      if (b > hi) n += c * (b - hi) / (b - a);
      break;
    }
  }
  return n;
}

bool Histogram::operator==(const Histogram& o) const {
  return count_ == o.count_ && binned_ == o.binned_ && sampled_ == o.sampled_ && nan_ == o.nan_ &&
         inf_ == o.inf_ && min_ == o.min_ && max_ == o.max_ && exponent_ == o.exponent_ &&
         first_bin_ == o.first_bin_ && bins_ == o.bins_;
}

}  // namespace edgeq
