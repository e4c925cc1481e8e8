// Histogram: a streaming, exactly mergeable summary of one value's distribution.
//
// Bins have width 2^k and are aligned at 0: global bin j holds [j * 2^k, (j + 1) * 2^k). The
// exponent k is always the smallest k >= kMinExponent for which the observed [min, max] spans at
// most kMaxBins bins (and |x| / 2^k stays below 2^52, so bin indices are exact). When the range
// grows, k grows and adjacent bin pairs are summed (bins nest, so nothing is re-estimated).
// Because k depends only on the final min and max, adding values in any order, in any batches,
// or merging histograms of shards gives bit-identical results: merged == one pass.
//
// NaN and +-Inf are counted apart and never enter the bins, min or max.
//
// Sampling: add(x, n, max_stride) with max_stride > 1 bins a large batch from a sample (see
// sample_stride()): the batch is cut into chunks of kSampleChunk values, the chunks into groups of
// `stride`, and one chunk per group, picked by a hash of the group's index, is the sample. From it
// come two cuts, about 0.2% of the values in from each end. The full pass that finds min and max
// also collects every value beyond the cuts: those tails are binned exactly (weight 1), and the
// sample's values within the cuts stand for the rest (weight `stride` each). So the tails, where
// percentile, entropy and MSE ranges are decided, are exact, and the bulk is estimated without
// bias. min, max, count and the NaN / Inf counts cover every value. Everything depends only on the
// batch, so runs repeat exactly and merges of shards equal one pass. binned() is the weight in the
// bins (= count() unless sampled); quantiles use it, and count_below / count_above are scaled to
// all values.
#pragma once
#include <cmath>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace edgeq {

// What one batch given to Histogram::add held. lo / hi: min / max of its finite values. below /
// above: with a pivot, the largest finite value <= pivot and the smallest >= pivot (-inf / +inf
// when there is none). lo, hi, below and above are left at their defaults when the batch held an
// infinity.
struct BatchScan {
  uint64_t finite = 0, nan = 0, inf = 0;
  float lo = INFINITY, hi = -INFINITY;
  float below = -INFINITY, above = INFINITY;
};

// How add() binned a sampled batch (stride > 1): every finite value beyond [cut_lo, cut_hi] in
// `tails` (weight 1), the sampled values within it in `bulk` (weight stride). A caller that
// derives another value elementwise from this batch bins f(bulk) and f(tails) the same way
// (add_sample), so the derived histogram is sampled at the same elements.
struct BatchSample {
  int64_t stride = 1;  // 1: the batch was not sampled (nothing kept)
  float cut_lo = 0, cut_hi = 0;
  std::vector<float> bulk, tails;
};

// Buffers a HistogramBatch works in. A caller that adds batch after batch of one value can keep
// them (and the BatchSample it asks for) between batches, so no batch allocates.
struct BatchBuffers {
  struct alignas(64) ThreadTails {  // a cache line each: threads append at once
    std::vector<float> values;
  };
  std::vector<float> sample, tails;
  std::vector<ThreadTails> part_tails;  // per thread
};

class HistogramBatch;

class Histogram {
 public:
  static constexpr int kMaxBins = 8192;
  static constexpr int kMinExponent = -64;
  static constexpr int64_t kSampleChunk = 256;
  // A sampled batch bins at least this many values; batches under twice this are binned whole.
  static constexpr int64_t kSampleFullBelow = 4096;

  // Chunks per group for a batch of n values: 1 (bin everything) when max_stride <= 1 or n is
  // small, else min(max_stride, n / kSampleFullBelow), so a batch bins at least kSampleFullBelow
  // values (or all of them).
  static int64_t sample_stride(int64_t n, int max_stride);

  // Adds n values (parallel over large inputs), binning them from a sample when max_stride > 1.
  // A pivot (not NaN) asks for BatchScan::below / above; `keep` receives the sample's split.
  BatchScan add(const float* x, int64_t n, int max_stride = 1, float pivot = NAN,
                BatchSample* keep = nullptr);
  // Adds a batch of `count` finite values known through its exact [lo, hi] and a split sample as
  // add() makes one (bulk values weigh `stride`, tails 1). [lo, hi] is widened to the given
  // values, should it be off.
  void add_sample(uint64_t count, float lo, float hi, int64_t stride,
                  const std::vector<float>& bulk, const std::vector<float>& tails);
  // Adds another histogram's values (exact, see above).
  void merge(const Histogram& other);

  uint64_t count() const { return count_; }    // finite values
  uint64_t binned() const { return binned_; }  // weight in the bins (= count() unless sampled)
  bool sampled() const { return sampled_; }    // some batch was binned from a sample
  uint64_t nan_count() const { return nan_; }
  uint64_t inf_count() const { return inf_; }
  bool empty() const { return count_ == 0; }
  float min() const { return min_; }  // of finite values; 0 when empty
  float max() const { return max_; }

  int exponent() const { return exponent_; }
  double bin_width() const;
  int64_t first_bin() const { return first_bin_; }  // global index of bins()[0]
  const std::vector<uint64_t>& bins() const { return bins_; }
  // Edges of bins()[i], clipped to [min, max] (the mass lies within them).
  double bin_lo(size_t i) const;
  double bin_hi(size_t i) const;

  // Value below which a fraction q of the binned values lie (linear inside a bin).
  double quantile(double q) const;
  // Number of finite values below lo / above hi (linear inside a bin; estimated from the binned
  // fraction when sampled, and then at least 1 when lo > min / hi < max).
  double count_below(double lo) const;
  double count_above(double hi) const;

  bool operator==(const Histogram& o) const;
  bool operator!=(const Histogram& o) const { return !(*this == o); }

  nlohmann::json to_json() const;
  // Throws naming `what` on malformed input.
  static Histogram from_json(const nlohmann::json& j, const std::string& what);

 private:
  friend class HistogramBatch;
  // Raises the exponent so that [min_, max_] fits, summing bin pairs; then re-bases bins_ so they
  // cover exactly floor(min_ / w) .. floor(max_ / w).
  void fit_range();
  int64_t global_bin(double x) const;
  // Takes a batch's scan (min / max of non-NaN values, NaN count) into the counts and the range;
  // returns true when the caller should count the sampled values with the fast float path,
  // otherwise bins them itself (exact in double; batches with NaN / Inf or huge indices).
  // Takes a batch's counts and finite range [lo, hi]; false when it held no finite value.
  bool take_batch(uint64_t finite, uint64_t nan, uint64_t inf, float lo, float hi);
  // Bins v[0, m) with `weight` each (non-finite values skipped), in parallel when many.
  void bin_values(const float* v, int64_t m, uint32_t weight, bool all_finite);

  // Mass of bins_ below lo / above hi (linear inside a bin).
  double mass_below(double lo) const;
  double mass_above(double hi) const;
  double count_per_binned() const;

  uint64_t count_ = 0, binned_ = 0, nan_ = 0, inf_ = 0;
  bool sampled_ = false;
  float min_ = 0, max_ = 0;
  int exponent_ = kMinExponent;
  int64_t first_bin_ = 0;
  std::vector<uint64_t> bins_;
};

// One batch of Histogram::add fed in pieces, for a caller that reads the values anyway (the
// executor's SiLU pass) and lets the statistics ride along instead of reading them again.
// Construct it once the values exist (it reads the sample and sets the tail cuts), pass every
// value exactly once through part() from any number of threads (each with its own index below
// `threads`), then close(), then bin(). A sampled batch (sampled()) keeps all close() and bin()
// need, so both may come later, from any thread, once the values are gone; otherwise close()
// and bin() read the values. The histogram is only touched by bin(). Histogram::add is this with
// the pieces read in parallel.
class HistogramBatch {
 public:
  HistogramBatch(Histogram& h, const float* x, int64_t n, int max_stride, float pivot, int threads,
                 BatchBuffers* buffers = nullptr);
  void part(const float* values, int64_t count, int thread);
  bool sampled() const { return stride_ > 1; }
  // After every part() of a sampled batch: whether every value was finite.
  bool all_finite() const;
  // Once, after every part(): what the batch held.
  BatchScan close();
  // Once, after close(): adds the batch to the histogram; the batch is spent afterwards.
  void bin(BatchSample* keep = nullptr);

 private:
  struct alignas(64) Partial {
    float lo = INFINITY, hi = -INFINITY, below = -INFINITY, above = INFINITY;
    uint64_t nan = 0;
  };
  BatchBuffers own_;
  BatchBuffers& buf_;
  Histogram& h_;
  const float* x_;
  int64_t n_, stride_;
  float pivot_;
  int64_t m_ = 0;
  float cut_lo_ = -INFINITY, cut_hi_ = INFINITY;
  std::vector<Partial> partials_;
  BatchScan scan_;
  float lo_ = INFINITY, hi_ = -INFINITY;  // finite min / max once closed
};

}  // namespace edgeq
