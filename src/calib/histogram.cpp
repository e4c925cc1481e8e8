#include "calib/histogram.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "calib/histogram_scan.h"
#include "core/error.h"
#include "core/json_number.h"

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

using histogram_scan::Scan;

// The exact min / max of the finite values and the number of +-Inf, for a batch whose fast scan
// met an infinity.
struct InfPass {
  float lo = INFINITY, hi = -INFINITY;
  uint64_t inf = 0;
};

InfPass inf_pass(const float* x, int64_t n) {
  InfPass s;
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    if (std::isinf(v)) {
      ++s.inf;
    } else if (!std::isnan(v)) {
      s.lo = std::min(s.lo, v);
      s.hi = std::max(s.hi, v);
    }
  }
  return s;
}

// One thread's zeroed uint32 counters, reused across calls (FastCounter leaves them zeroed).
uint32_t* counter_scratch(size_t n) {
  thread_local std::vector<uint32_t> scratch;
  if (scratch.size() < n) scratch.assign(n, 0);
  return scratch.data();
}

// Counts finite values that lie within the bins. Global bin indices below 2^24 are exact in
// float, which lets the index computation vectorize. With scratch counters (one set per thread,
// added to the bins by flush_into()), two interleaved uint32 sub-histograms break the
// store-to-load chains of runs of equal bins, and only the touched range is drained. Direct
// counting adds straight into the bins: slower per value but with nothing to drain, which wins
// for batches of fewer values than kDirectBelow.
class FastCounter {
 public:
  static constexpr int64_t kDirectBelow = 1 << 15;

  // Each value adds `weight` to its bin (its sampling stride).
  FastCounter(size_t nb, float inv_width, float first, uint32_t weight)
      : nb_(nb),
        inv_width_(inv_width),
        first_(first),
        weight_(weight),
        sub_(counter_scratch(2 * nb)) {}
  FastCounter(uint64_t* bins, size_t nb, float inv_width, float first, uint32_t weight)
      : nb_(nb), inv_width_(inv_width), first_(first), weight_(weight), direct_(bins) {}

  void add(const float* x, int64_t n) {
    constexpr int64_t kBlock = 1024;
    int32_t idx[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      const float* v = x + start;
      bin_indices(v, m, idx);
      if (direct_) {
        for (int64_t i = 0; i < m; ++i) direct_[idx[i]] += weight_;
        continue;
      }
      uint32_t* s0 = sub_;
      uint32_t* s1 = sub_ + nb_;
      int64_t i = 0;
      for (; i + 2 <= m; i += 2) {
        s0[idx[i]] += weight_;
        s1[idx[i + 1]] += weight_;
      }
      if (i < m) s0[idx[i]] += weight_;
      pending_ += m * weight_;
      if (pending_ > (int64_t{1} << 31)) {  // before any uint32 overflows
        spill_.resize(nb_, 0);
        drain(spill_.data());
      }
    }
  }

  // Adds the counts to bins (nb of them) and clears the counters.
  void flush_into(uint64_t* bins) {
    if (direct_) return;
    drain(bins);
    for (size_t b = 0; b < spill_.size(); ++b) bins[b] += spill_[b];
    spill_.clear();
  }

 private:
  // idx[i] = floor(v[i] / width) - first, widening the touched range [lo_, hi_].
  void bin_indices(const float* v, int64_t m, int32_t* idx) {
    histogram_scan::bin_indices(v, m, inv_width_, first_, idx, lo_, hi_);
  }

  void drain(uint64_t* bins) {
    uint32_t* s0 = sub_;
    uint32_t* s1 = sub_ + nb_;
    for (int32_t b = lo_; b <= hi_; ++b) {
      bins[b] += uint64_t{s0[b]} + s1[b];
      s0[b] = s1[b] = 0;
    }
    pending_ = 0;
    lo_ = INT32_MAX;
    hi_ = -1;
  }

  size_t nb_;
  float inv_width_, first_;
  uint32_t weight_;
  uint32_t* sub_ = nullptr;
  uint64_t* direct_ = nullptr;
  std::vector<uint64_t> spill_;
  int64_t pending_ = 0;
  int32_t lo_ = INT32_MAX, hi_ = -1;  // touched bins since the last drain
};

uint64_t mix64(uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The sample of a batch: group g of `stride` chunks contributes chunk(g).
struct Sampling {
  int64_t n, stride, groups;
  explicit Sampling(int64_t n_, int64_t stride_)
      : n(n_),
        stride(stride_),
        groups((n_ + stride_ * Histogram::kSampleChunk - 1) / (stride_ * Histogram::kSampleChunk)) {
  }
  // [begin, end) of group g's chunk; empty when the picked chunk lies past the end.
  std::pair<int64_t, int64_t> chunk(int64_t g) const {
    if (stride == 1)
      return {g * Histogram::kSampleChunk, std::min(n, (g + 1) * Histogram::kSampleChunk)};
    int64_t c = g * stride + static_cast<int64_t>(mix64(static_cast<uint64_t>(g)) %
                                                  static_cast<uint64_t>(stride));
    int64_t b = std::min(n, c * Histogram::kSampleChunk);
    return {b, std::min(n, b + Histogram::kSampleChunk)};
  }
};

// Where a sampled batch's tails begin: about kTailFraction of the values on each side, estimated
// from at most 4096 of the sampled values (the split need not be precise: values beyond the cuts
// are binned exactly, values within them through the sample, and either way nothing is biased).
constexpr double kTailFraction = 0.002;

std::pair<float, float> tail_cuts(const float* sample, int64_t m) {
  constexpr int64_t kProbe = 2048;
  const int64_t step = std::max<int64_t>(1, m / kProbe);
  const int64_t probes = (m + step - 1) / step;
  const size_t k = static_cast<size_t>(kTailFraction * static_cast<double>(probes));
  // The k+1 smallest and k+1 largest finite probes, kept sorted (k is about 4). Which probes are
  // offered in which order does not change them.
  std::vector<float> low, high;
  low.reserve(k + 2);
  high.reserve(k + 2);
  auto offer = [&](float v) {
    if (!std::isfinite(v)) return;
    if (low.size() <= k || v < low.back()) {
      low.insert(std::upper_bound(low.begin(), low.end(), v), v);
      if (low.size() > k + 1) low.pop_back();
    }
    if (high.size() <= k || v > high.back()) {
      high.insert(std::upper_bound(high.begin(), high.end(), v, std::greater<float>()), v);
      if (high.size() > k + 1) high.pop_back();
    }
  };
  int64_t j = 0;  // probe j is sample[j * step]
  for (; j < probes && low.size() <= k; ++j) offer(sample[j * step]);
  // Most probes fall inside both bounds: test 16 at a time, offer only those outside.
  if (step * 16 < (int64_t{1} << 31)) {
    for (; j + 16 <= probes; j += 16)
      for (uint32_t out = histogram_scan::probes_outside(sample, step, j, low.back(), high.back());
           out; out &= out - 1)
        offer(sample[(j + __builtin_ctz(out)) * step]);
  }
  for (; j < probes; ++j) offer(sample[j * step]);
  if (low.empty()) return {INFINITY, -INFINITY};  // no finite probe: everything is a tail
  return {low.back(), high.back()};
}

}  // namespace

int64_t Histogram::sample_stride(int64_t n, int max_stride) {
  if (max_stride <= 1 || n < 2 * kSampleFullBelow) return 1;
  return std::min<int64_t>(max_stride, n / kSampleFullBelow);
}

bool Histogram::take_batch(uint64_t finite, uint64_t nan, uint64_t inf, float lo, float hi) {
  nan_ += nan;
  inf_ += inf;
  if (finite == 0) return false;
  lo += 0.0f;  // -0 -> +0: which zero a scan met first must not show
  hi += 0.0f;
  if (count_ == 0) {
    min_ = lo;
    max_ = hi;
  } else {
    min_ = std::min(min_, lo);
    max_ = std::max(max_, hi);
  }
  count_ += finite;
  fit_range();
  return true;
}

void Histogram::bin_values(const float* v, int64_t m, uint32_t weight, bool all_finite) {
  if (m <= 0) return;
  const int64_t first = first_bin_;
  const int64_t last = first + static_cast<int64_t>(bins_.size()) - 1;
  if (!all_finite || std::max(std::llabs(first), std::llabs(last)) >= (1 << 24)) {
    // Exact in double for any index; skips NaN and Inf.
    const double inv_width = std::ldexp(1.0, -exponent_);
    for (int64_t i = 0; i < m; ++i)
      if (std::isfinite(v[i])) {
        bins_[static_cast<int64_t>(std::floor(static_cast<double>(v[i]) * inv_width)) - first] +=
            weight;
        binned_ += weight;
      }
    return;
  }
  const float inv_width = std::ldexp(1.0f, -exponent_), ffirst = static_cast<float>(first);
  if (m < FastCounter::kDirectBelow) {
    FastCounter(bins_.data(), bins_.size(), inv_width, ffirst, weight).add(v, m);
  } else {
#pragma omp parallel
    {
      FastCounter counter(bins_.size(), inv_width, ffirst, weight);
#pragma omp for schedule(static) nowait
      for (int64_t b = 0; b < m; b += kParallelMin)
        counter.add(v + b, std::min(kParallelMin, m - b));
#pragma omp critical(edgeq_histogram_add)
      counter.flush_into(bins_.data());
    }
  }
  binned_ += static_cast<uint64_t>(m) * weight;
}

HistogramBatch::HistogramBatch(Histogram& h, const float* x, int64_t n, int max_stride, float pivot,
                               int threads, BatchBuffers* buffers)
    : buf_(buffers ? *buffers : own_),
      h_(h),
      x_(x),
      n_(std::max<int64_t>(n, 0)),
      stride_(Histogram::sample_stride(n_, max_stride)),
      pivot_(pivot),
      partials_(static_cast<size_t>(std::max(threads, 1))) {
  buf_.tails.clear();
  buf_.part_tails.resize(partials_.size());
  for (auto& t : buf_.part_tails) t.values.clear();
  if (stride_ == 1 || n_ == 0) return;
  // The sample first: it sets the tail cuts for the pieces.
  const Sampling sampling(n_, stride_);
  buf_.sample.resize(static_cast<size_t>(sampling.groups * Histogram::kSampleChunk));
  for (int64_t g = 0; g < sampling.groups; ++g) {
    auto [b, e] = sampling.chunk(g);
    std::copy(x + b, x + e, buf_.sample.data() + m_);
    m_ += e - b;
  }
  std::tie(cut_lo_, cut_hi_) = tail_cuts(buf_.sample.data(), m_);
}

void HistogramBatch::part(const float* values, int64_t count, int thread) {
  Partial& p = partials_.at(static_cast<size_t>(thread));
  std::vector<float>& tails = buf_.part_tails[static_cast<size_t>(thread)].values;
  for (int64_t b = 0; b < count; b += kParallelMin) {  // keeps the scan's NaN lanes small
    const float* v = values + b;
    const int64_t len = std::min(kParallelMin, count - b);
    const bool pivot = !std::isnan(pivot_);
    Scan sc = histogram_scan::scan(v, len, pivot, stride_ == 1, pivot ? pivot_ : 0.0f, cut_lo_,
                                   cut_hi_, &tails);
    p.lo = std::min(p.lo, sc.lo);
    p.hi = std::max(p.hi, sc.hi);
    p.below = std::max(p.below, sc.below);
    p.above = std::min(p.above, sc.above);
    p.nan += sc.nan;
  }
}

bool HistogramBatch::all_finite() const {
  EDGEQ_CHECK(sampled(), "HistogramBatch::all_finite: only sampled batches know it");
  // NaN is counted by the scans; an infinity lies beyond the (finite or empty) cuts, so it is
  // among the tails.
  for (const Partial& p : partials_)
    if (p.nan > 0) return false;
  for (const auto& t : buf_.part_tails)
    for (float v : t.values)
      if (std::isinf(v)) return false;
  return true;
}

BatchScan HistogramBatch::close() {
  float below = -INFINITY, above = INFINITY;
  uint64_t nan = 0;
  for (Partial& p : partials_) {
    lo_ = std::min(lo_, p.lo);
    hi_ = std::max(hi_, p.hi);
    below = std::max(below, p.below);
    above = std::min(above, p.above);
    nan += p.nan;
  }
  for (const auto& t : buf_.part_tails)
    buf_.tails.insert(buf_.tails.end(), t.values.begin(), t.values.end());
  partials_.clear();
  if (n_ == 0) return scan_;
  uint64_t inf = 0;
  if (stride_ > 1) {
    // The pieces' scans skipped min / max. Every value beyond a cut is among the tails (+-Inf
    // included), and the cuts are values of the batch (sample values), so the finite extremes
    // are the tails' beyond the cuts, or else the cuts themselves.
    float lo = INFINITY, hi = -INFINITY;
    for (float v : buf_.tails) {
      if (std::isinf(v)) {
        ++inf;
      } else {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    lo_ = lo < cut_lo_ ? lo : cut_lo_;
    hi_ = hi > cut_hi_ ? hi : cut_hi_;
  } else if (std::isinf(lo_) || std::isinf(hi_)) {
    InfPass p = inf_pass(x_, n_);
    lo_ = p.lo;
    hi_ = p.hi;
    inf = p.inf;
  }
  scan_.nan = nan;
  scan_.inf = inf;
  scan_.finite = static_cast<uint64_t>(n_) - nan - inf;
  if (inf == 0) {
    scan_.lo = lo_;
    scan_.hi = hi_;
    scan_.below = below;
    scan_.above = above;
  }
  return scan_;
}

void HistogramBatch::bin(BatchSample* keep) {
  if (keep) {
    keep->stride = 1;
    keep->bulk.clear();
    keep->tails.clear();
  }
  if (n_ == 0 || !h_.take_batch(scan_.finite, scan_.nan, scan_.inf, lo_, hi_)) return;
  if (stride_ == 1) {
    h_.bin_values(x_, n_, 1, scan_.nan + scan_.inf == 0);
    return;
  }
  // Tails exactly (weight 1), the sample's values within the cuts for the rest (weight stride).
  h_.sampled_ = true;
  h_.bin_values(buf_.tails.data(), static_cast<int64_t>(buf_.tails.size()), 1, scan_.inf == 0);
  float* sample = buf_.sample.data();
  const int64_t kept = histogram_scan::within(sample, m_, cut_lo_, cut_hi_, sample);
  h_.bin_values(sample, kept, static_cast<uint32_t>(stride_), true);
  if (keep) {
    keep->stride = stride_;
    keep->cut_lo = cut_lo_;
    keep->cut_hi = cut_hi_;
    buf_.sample.resize(static_cast<size_t>(kept));
    keep->bulk.swap(buf_.sample);  // the batch is done with them
    keep->tails.swap(buf_.tails);
  }
}

BatchScan Histogram::add(const float* x, int64_t n, int max_stride, float pivot,
                         BatchSample* keep) {
  const bool parallel = n >= 2 * kParallelMin;
  HistogramBatch batch(*this, x, n, max_stride, pivot, parallel ? omp_get_max_threads() : 1);
  const int64_t parts = (std::max<int64_t>(n, 0) + kParallelMin - 1) / kParallelMin;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t p = 0; p < parts; ++p)
    batch.part(x + p * kParallelMin, std::min(kParallelMin, n - p * kParallelMin),
               parallel ? omp_get_thread_num() : 0);
  BatchScan scan = batch.close();
  batch.bin(keep);
  return scan;
}

void Histogram::add_sample(uint64_t count, float lo, float hi, int64_t stride,
                           const std::vector<float>& bulk, const std::vector<float>& tails) {
  // The caller's range is exact by construction; the given values can only confirm it (this also
  // keeps every bin index in range).
  for (const std::vector<float>* v : {&bulk, &tails}) {
    Scan sc = histogram_scan::scan(v->data(), static_cast<int64_t>(v->size()), false, true, 0.0f);
    EDGEQ_CHECK(sc.nan == 0 && (v->empty() || (std::isfinite(sc.lo) && std::isfinite(sc.hi))),
                "derived statistics: a non-finite value");
    lo = std::min(lo, sc.lo);
    hi = std::max(hi, sc.hi);
  }
  if (!take_batch(count, 0, 0, lo, hi)) return;
  if (stride > 1) sampled_ = true;
  bin_values(tails.data(), static_cast<int64_t>(tails.size()), 1, true);
  bin_values(bulk.data(), static_cast<int64_t>(bulk.size()), static_cast<uint32_t>(stride), true);
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
  binned_ += other.binned_;
  sampled_ = sampled_ || other.sampled_;
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

nlohmann::json Histogram::to_json() const {
  return nlohmann::json{{"count", count_}, {"binned", binned_},     {"sampled", sampled_},
                        {"nan", nan_},     {"inf", inf_},           {"min", min_},
                        {"max", max_},     {"exponent", exponent_}, {"first_bin", first_bin_},
                        {"bins", bins_}};
}

Histogram Histogram::from_json(const nlohmann::json& j, const std::string& what) {
  Histogram h;
  try {
    h.count_ = json_number_at<uint64_t>(j, "count", what);
    // version 1 files bin every value
    h.binned_ = j.contains("binned") ? json_number_at<uint64_t>(j, "binned", what) : h.count_;
    h.sampled_ = j.value("sampled", false);
    h.nan_ = json_number_at<uint64_t>(j, "nan", what);
    h.inf_ = json_number_at<uint64_t>(j, "inf", what);
    h.min_ = json_number_at<float>(j, "min", what);
    h.max_ = json_number_at<float>(j, "max", what);
    h.exponent_ = json_number_at<int>(j, "exponent", what);
    h.first_bin_ = json_number_at<int64_t>(j, "first_bin", what);
    const nlohmann::json& bins = j.at("bins");
    EDGEQ_CHECK(bins.is_array(), what, ": 'bins' must be a list");
    for (const nlohmann::json& b : bins) h.bins_.push_back(json_number<uint64_t>(b, what + " bin"));
  } catch (const nlohmann::json::exception& e) {
    fail(what, ": malformed histogram (", e.what(), ")");
  }
  uint64_t sum = 0;
  for (uint64_t b : h.bins_) sum += b;
  EDGEQ_CHECK(sum == h.binned_, what, ": histogram bins sum to ", sum, " but binned is ",
              h.binned_);
  EDGEQ_CHECK(h.sampled_ ? (h.binned_ > 0) == (h.count_ > 0) : h.binned_ == h.count_, what,
              ": histogram bins weigh ", h.binned_, " for ", h.count_, " values");
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
