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
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace edgeq {

class Histogram {
 public:
  static constexpr int kMaxBins = 8192;
  static constexpr int kMinExponent = -64;

  // Adds n values (parallel over large inputs).
  void add(const float* x, int64_t n);
  // Adds another histogram's values (exact, see above).
  void merge(const Histogram& other);

  uint64_t count() const { return count_; }  // finite values
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

  // Value below which a fraction q of the finite values lie (linear inside a bin).
  double quantile(double q) const;
  // Number of finite values below lo / above hi (linear inside a bin).
  double count_below(double lo) const;
  double count_above(double hi) const;

  bool operator==(const Histogram& o) const;
  bool operator!=(const Histogram& o) const { return !(*this == o); }

  nlohmann::json to_json() const;
  // Throws naming `what` on malformed input.
  static Histogram from_json(const nlohmann::json& j, const std::string& what);

 private:
  // Raises the exponent so that [min_, max_] fits, summing bin pairs; then re-bases bins_ so they
  // cover exactly floor(min_ / w) .. floor(max_ / w).
  void fit_range();
  int64_t global_bin(double x) const;

  uint64_t count_ = 0, nan_ = 0, inf_ = 0;
  float min_ = 0, max_ = 0;
  int exponent_ = kMinExponent;
  int64_t first_bin_ = 0;
  std::vector<uint64_t> bins_;
};

}  // namespace edgeq
