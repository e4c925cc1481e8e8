#include "quant/histogram.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace edgeq {
namespace {

constexpr double kIndexLimit = 4503599627370496.0;  // 2^52: bin indices stay exact doubles
constexpr int64_t kParallelMin = 1 << 15;

int64_t floor_shift(int64_t g, int shift) {
  return shift >= 63 ? (g < 0 ? -1 : 0) : g >> shift;
}

int64_t bin_of(double x, int exponent) {
  return static_cast<int64_t>(std::floor(std::ldexp(x, -exponent)));
}

bool fits(double lo, double hi, int k) {
  double amax = std::max(std::fabs(lo), std::fabs(hi));
  if (std::ldexp(amax, -k) >= kIndexLimit) return false;
  return bin_of(hi, k) - bin_of(lo, k) + 1 <= Histogram::kMaxBins;
}

// Smallest k >= k0 for which [lo, hi] fits. Both conditions of fits() only get easier as k grows,
// so the answer depends on lo and hi alone whenever k0 does not exceed it.
int required_exponent(double lo, double hi, int k0) {
  int k = k0;
  double span = hi - lo;
  // Lower bounds of the answer, to skip most of the search.
  if (span > 0) k = std::max(k, std::ilogb(span / Histogram::kMaxBins));
  double amax = std::max(std::fabs(lo), std::fabs(hi));
  if (amax > 0) k = std::max(k, std::ilogb(amax) - 52);
  while (!fits(lo, hi, k)) ++k;
  return k;
}

// Re-bins (first, bins) from exponent `from` to exponent `to` >= from by summing nested bins.
void coarsen(int from, int to, int64_t& first, std::vector<uint64_t>& bins) {
  if (to == from || bins.empty()) return;
  int shift = to - from;
  int64_t last = first + static_cast<int64_t>(bins.size()) - 1;
  int64_t nfirst = floor_shift(first, shift), nlast = floor_shift(last, shift);
  std::vector<uint64_t> out(nlast - nfirst + 1, 0);
  for (size_t i = 0; i < bins.size(); ++i)
    out[floor_shift(first + static_cast<int64_t>(i), shift) - nfirst] += bins[i];
  first = nfirst;
  bins.swap(out);
}

}  // namespace

double Histogram::bin_width() const {
  return std::ldexp(1.0, exponent_);
}

int64_t Histogram::global_bin(double x) const {
  return bin_of(x, exponent_);
}

double Histogram::bin_lo(size_t i) const {
  double edge = std::ldexp(static_cast<double>(first_bin_ + static_cast<int64_t>(i)), exponent_);
  return std::max(edge, static_cast<double>(min_));
}

double Histogram::bin_hi(size_t i) const {
  double edge =
      std::ldexp(static_cast<double>(first_bin_ + static_cast<int64_t>(i) + 1), exponent_);
  return std::min(edge, static_cast<double>(max_));
}

void Histogram::fit_range() {
  int k = required_exponent(min_, max_, exponent_);
  coarsen(exponent_, k, first_bin_, bins_);
  exponent_ = k;
  int64_t lo = global_bin(min_), hi = global_bin(max_);
  if (bins_.empty()) {
    first_bin_ = lo;
    bins_.assign(hi - lo + 1, 0);
    return;
  }
  if (lo == first_bin_ && hi == first_bin_ + static_cast<int64_t>(bins_.size()) - 1) return;
  std::vector<uint64_t> out(hi - lo + 1, 0);
  std::copy(bins_.begin(), bins_.end(), out.begin() + (first_bin_ - lo));
  first_bin_ = lo;
  bins_.swap(out);
}

namespace {

// min / max of the finite values and the NaN / Inf counts of x[0, n).
struct Scan {
  float lo = INFINITY, hi = -INFINITY;
  uint64_t nan = 0, inf = 0;
};

Scan scan(const float* x, int64_t n) {
  float lo = INFINITY, hi = -INFINITY;
  uint64_t nan = 0;
  // Comparisons with NaN are false, so NaN never becomes lo or hi; +-Inf may, and then a second
  // (rare) pass separates them.
#pragma omp parallel for simd reduction(min : lo) reduction(max : hi) reduction(+ : nan) \
    if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    nan += v != v;
  }
  Scan s{lo, hi, nan, 0};
  if (std::isinf(lo) || std::isinf(hi)) {
    s.lo = INFINITY;
    s.hi = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if (std::isinf(v)) {
        ++s.inf;
      } else if (!std::isnan(v)) {
        s.lo = std::min(s.lo, v);
        s.hi = std::max(s.hi, v);
      }
    }
  }
  return s;
}

// Counts finite values that lie within the bins. Global bin indices below 2^24 are exact in
// float, which lets the index computation vectorize; four interleaved uint32 sub-histograms break
// the store-to-load chains of runs of equal bins and keep the working set small.
class FastCounter {
 public:
  FastCounter(size_t nb, float inv_width, float first)
      : nb_(nb), inv_width_(inv_width), first_(first), sub_(4 * nb, 0) {}

  void add(const float* x, int64_t n) {
    constexpr int64_t kBlock = 1024;
    int32_t idx[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      const float* v = x + start;
#pragma omp simd
      for (int64_t i = 0; i < m; ++i)
        idx[i] = static_cast<int32_t>(std::floor(v[i] * inv_width_) - first_);
      uint32_t* s = sub_.data();
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) {
        ++s[idx[i]];
        ++s[nb_ + idx[i + 1]];
        ++s[2 * nb_ + idx[i + 2]];
        ++s[3 * nb_ + idx[i + 3]];
      }
      for (; i < m; ++i) ++s[idx[i]];
      pending_ += m;
      if (pending_ > (int64_t{1} << 30)) flush_into(spill_);  // before any uint32 overflows
    }
  }

  // Adds the counts to bins (nb of them) and clears them.
  void flush_into(std::vector<uint64_t>& bins) {
    if (bins.empty()) bins.assign(nb_, 0);
    for (size_t b = 0; b < nb_; ++b) {
      bins[b] += uint64_t{sub_[b]} + sub_[nb_ + b] + sub_[2 * nb_ + b] + sub_[3 * nb_ + b];
      sub_[b] = sub_[nb_ + b] = sub_[2 * nb_ + b] = sub_[3 * nb_ + b] = 0;
    }
    pending_ = 0;
  }
  void flush_into(uint64_t* bins) {
    std::vector<uint64_t> all;
    flush_into(all);
    for (size_t b = 0; b < spill_.size(); ++b) all[b] += spill_[b];
    spill_.clear();
    for (size_t b = 0; b < nb_; ++b) bins[b] += all[b];
  }

 private:
  size_t nb_;
  float inv_width_, first_;
  std::vector<uint32_t> sub_;
  std::vector<uint64_t> spill_;
  int64_t pending_ = 0;
};

}  // namespace

void Histogram::add(const float* x, int64_t n) {
  if (n <= 0) return;
  Scan sc = scan(x, n);
  nan_ += sc.nan;
  inf_ += sc.inf;
  uint64_t finite = static_cast<uint64_t>(n) - sc.nan - sc.inf;
  if (finite == 0) return;
  if (count_ == 0) {
    min_ = sc.lo;
    max_ = sc.hi;
  } else {
    min_ = std::min(min_, sc.lo);
    max_ = std::max(max_, sc.hi);
  }
  count_ += finite;
  fit_range();

  const int64_t first = first_bin_;
  const int64_t last = first + static_cast<int64_t>(bins_.size()) - 1;
  const size_t nb = bins_.size();
  uint64_t* bins = bins_.data();
  const bool fast =
      sc.nan + sc.inf == 0 && std::max(std::llabs(first), std::llabs(last)) < (1 << 24);
  if (!fast) {  // exact in double for any index; skips NaN and Inf
    const double inv_width = std::ldexp(1.0, -exponent_);
    for (int64_t i = 0; i < n; ++i)
      if (std::isfinite(x[i]))
        ++bins[static_cast<int64_t>(std::floor(static_cast<double>(x[i]) * inv_width)) - first];
    return;
  }
  const float inv_width = std::ldexp(1.0f, -exponent_);
  const float ffirst = static_cast<float>(first);
  if (n < kParallelMin) {
    FastCounter counter(nb, inv_width, ffirst);
    counter.add(x, n);
    counter.flush_into(bins);
    return;
  }
#pragma omp parallel
  {
    FastCounter counter(nb, inv_width, ffirst);
#pragma omp for schedule(static) nowait
    for (int64_t c = 0; c < (n + kParallelMin - 1) / kParallelMin; ++c) {
      int64_t b = c * kParallelMin;
      counter.add(x + b, std::min(kParallelMin, n - b));
    }
#pragma omp critical(edgeq_histogram_add)
    counter.flush_into(bins);
  }
}

void Histogram::merge(const Histogram& other) {
  nan_ += other.nan_;
  inf_ += other.inf_;
  if (other.count_ == 0) return;
  if (count_ == 0) {
    uint64_t nan = nan_, inf = inf_;
    *this = other;
    nan_ = nan;
    inf_ = inf;
    return;
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  if (other.exponent_ > exponent_) {
    coarsen(exponent_, other.exponent_, first_bin_, bins_);
    exponent_ = other.exponent_;
  }
  fit_range();
  int64_t ofirst = other.first_bin_;
  std::vector<uint64_t> obins = other.bins_;
  coarsen(other.exponent_, exponent_, ofirst, obins);
  for (size_t i = 0; i < obins.size(); ++i) bins_[ofirst - first_bin_ + i] += obins[i];
}

double Histogram::quantile(double q) const {
  if (count_ == 0) return 0.0;
  if (q <= 0) return min_;
  if (q >= 1) return max_;
  double target = q * static_cast<double>(count_);
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

double Histogram::count_below(double lo) const {
  if (count_ == 0 || lo <= min_) return 0.0;
  if (lo > max_) return static_cast<double>(count_);
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

double Histogram::count_above(double hi) const {
  if (count_ == 0 || hi >= max_) return 0.0;
  if (hi < min_) return static_cast<double>(count_);
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
  return count_ == o.count_ && nan_ == o.nan_ && inf_ == o.inf_ && min_ == o.min_ &&
         max_ == o.max_ && exponent_ == o.exponent_ && first_bin_ == o.first_bin_ &&
         bins_ == o.bins_;
}

nlohmann::json Histogram::to_json() const {
  return nlohmann::json{{"count", count_},
                        {"nan", nan_},
                        {"inf", inf_},
                        {"min", min_},
                        {"max", max_},
                        {"exponent", exponent_},
                        {"first_bin", first_bin_},
                        {"bins", bins_}};
}

Histogram Histogram::from_json(const nlohmann::json& j, const std::string& what) {
  Histogram h;
  try {
    h.count_ = j.at("count").get<uint64_t>();
    h.nan_ = j.at("nan").get<uint64_t>();
    h.inf_ = j.at("inf").get<uint64_t>();
    h.min_ = j.at("min").get<float>();
    h.max_ = j.at("max").get<float>();
    h.exponent_ = j.at("exponent").get<int>();
    h.first_bin_ = j.at("first_bin").get<int64_t>();
    h.bins_ = j.at("bins").get<std::vector<uint64_t>>();
  } catch (const nlohmann::json::exception& e) {
    fail(what, ": malformed histogram (", e.what(), ")");
  }
  uint64_t sum = 0;
  for (uint64_t b : h.bins_) sum += b;
  EDGEQ_CHECK(sum == h.count_, what, ": histogram bins sum to ", sum, " but count is ", h.count_);
  if (h.count_ == 0) {
    EDGEQ_CHECK(h.bins_.empty(), what, ": empty histogram with bins");
    return h;
  }
  EDGEQ_CHECK(std::isfinite(h.min_) && std::isfinite(h.max_) && h.min_ <= h.max_, what,
              ": histogram range [", h.min_, ", ", h.max_, "] is invalid");
  EDGEQ_CHECK(h.exponent_ >= kMinExponent && h.exponent_ <= 1100 &&
                  fits(h.min_, h.max_, h.exponent_) &&
                  (h.exponent_ == kMinExponent || !fits(h.min_, h.max_, h.exponent_ - 1)) &&
                  h.first_bin_ == h.global_bin(h.min_) &&
                  h.first_bin_ + static_cast<int64_t>(h.bins_.size()) - 1 == h.global_bin(h.max_),
              what, ": histogram bins do not match its range [", h.min_, ", ", h.max_, "]");
  return h;
}

}  // namespace edgeq
