// Range schemes on synthetic distributions with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/range_scheme.h"
#include "core/error.h"

namespace edgeq {
namespace {

Histogram histogram_of(const std::vector<float>& v) {
  Histogram h;
  h.add(v.data(), v.size());
  return h;
}

// N(0, 1), one million samples, plus 10 far outliers (5 at +50, 5 at -45).
const Histogram& gaussian_with_outliers() {
  static const Histogram h = [] {
    std::mt19937 rng(7);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float> v(1000000);
    for (auto& x : v) x = g(rng);
    for (int i = 0; i < 5; ++i) {
      v[i * 1000] = 50.0f;
      v[i * 1000 + 1] = -45.0f;
    }
    return histogram_of(v);
  }();
  return h;
}

const Histogram& uniform_minus1_to_3() {
  static const Histogram h = [] {
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> u(-1.0f, 3.0f);
    std::vector<float> v(1000000);
    for (auto& x : v) x = u(rng);
    return histogram_of(v);
  }();
  return h;
}

// `spec`: a method's name, "percentile:P" for a percentile P.
Range run(const std::string& spec, const Histogram& h, int bits, bool sym) {
  const size_t colon = spec.find(':');
  const RangeMethod m = parse<RangeMethod>(spec.substr(0, colon));
  const double p = colon == std::string::npos ? 0 : std::stod(spec.substr(colon + 1));
  return make_range_scheme(m, p)->compute(h, {bits, sym});
}

}  // namespace

TEST(QuantRange, MinMaxCoversOutliers) {
  Range r = run("minmax", gaussian_with_outliers(), 8, false);
  EXPECT_EQ(r.lo, -45.0);
  EXPECT_EQ(r.hi, 50.0);
}

TEST(QuantRange, PercentileClipsOutliers) {
  // 99.99: 0.005% per tail; the N(0,1) quantile at 0.99995 is 3.89. The 5 outliers per side
  // are 0.0005% and fall beyond it.
  Range r = run("percentile:99.99", gaussian_with_outliers(), 8, false);
  EXPECT_NEAR(r.hi, 3.89, 0.15);
  EXPECT_NEAR(r.lo, -3.89, 0.15);
  // Symmetric: 99.99% of |x| lies below the N(0,1) two-sided quantile 3.89.
  Range s = run("percentile:99.99", gaussian_with_outliers(), 8, true);
  EXPECT_NEAR(s.hi, 3.89, 0.15);
  EXPECT_NEAR(s.lo, -3.89, 0.15);
  // 99: 0.5% per tail -> 2.576.
  Range p99 = run("percentile:99", gaussian_with_outliers(), 8, false);
  EXPECT_NEAR(p99.hi, 2.576, 0.05);
}

TEST(QuantRange, PercentileOfDiscreteUniform) {
  // 0..9999: percentile 99 drops 50 values from each tail.
  std::vector<float> v(10000);
  for (int i = 0; i < 10000; ++i) v[i] = static_cast<float>(i);
  Range r = run("percentile:99", histogram_of(v), 8, false);
  EXPECT_NEAR(r.lo, 50.0, 1.5);
  EXPECT_NEAR(r.hi, 9949.0, 1.5);
}

TEST(QuantRange, EntropyClipsOutliers) {
  Range r = run("entropy", gaussian_with_outliers(), 8, true);
  EXPECT_GT(r.hi, 2.5);
  EXPECT_LT(r.hi, 10.0);
  EXPECT_LT(r.lo, -2.5);
  EXPECT_GT(r.lo, -10.0);
  Range a = run("entropy", gaussian_with_outliers(), 8, false);
  EXPECT_GT(a.hi, 2.5);
  EXPECT_LT(a.hi, 10.0);
}

TEST(QuantRange, MseClipsOutliersAt8BitToTheAnalyticOptimum) {
  // Past the Gaussian body only the outliers are clipped, so with c = 1e6 / (12 * 255^2):
  //   E(lo, hi) = c (hi - lo)^2 + 5 (50 - hi)^2 + 5 (45 + lo)^2
  // is minimal where 2c (hi - lo) = 10 (50 - hi) = 10 (45 + lo), so lo = 5 - hi and
  // hi = (500 + 10c) / (10 + 4c) = 33.90, lo = -28.90.
  // The outliers are clipped, though not to the body: 10 values cost more than the noise.
  const double c = 1e6 / (12.0 * 255.0 * 255.0);
  const double hi = (500.0 + 10.0 * c) / (10.0 + 4.0 * c);
  Range r = run("mse", gaussian_with_outliers(), 8, false);
  EXPECT_NEAR(r.hi, hi, 0.1);
  EXPECT_NEAR(r.lo, -(hi - 5.0), 0.1);
  EXPECT_LT(r.hi, 40.0);
  // Symmetric int8, step T / 127: E(T) = 1e6 (T / 127)^2 / 12 + 5 (50 - T)^2 + 5 (45 - T)^2,
  // minimal at T = 950 / (20 + 2e6 / (12 * 127^2)) = 31.32.
  double t = 950.0 / (20.0 + 2e6 / (12.0 * 127.0 * 127.0));
  Range s = run("mse", gaussian_with_outliers(), 8, true);
  EXPECT_NEAR(s.hi, t, 0.1);
  EXPECT_NEAR(s.lo, -t, 0.1);
}

TEST(QuantRange, MseKeepsOutliersAt16Bit) {
  // At 16 bit the rounding noise of the full range (1e6 * (95/65535)^2 / 12 = 0.18) is far below
  // the cost of clipping even one outlier.
  Range r = run("mse", gaussian_with_outliers(), 16, false);
  EXPECT_NEAR(r.hi, 50.0, 0.5);
  EXPECT_NEAR(r.lo, -45.0, 0.5);
}

TEST(QuantRange, MseMatchesAnalyticOptimum) {
  // 1e6 values uniform in [0, 1] plus one value at 10, 8 bit, lo = 0. For hi >= 1:
  // E(h) = (10 - h)^2 + 1e6 (h / 255)^2 / 12, minimal at h = 10 / (1 + 1e6 / (12 * 255^2)).
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(1000000);
  for (auto& x : v) x = u(rng);
  v[0] = 10.0f;
  double expected = 10.0 / (1.0 + 1e6 / (12.0 * 255.0 * 255.0));  // 4.383
  Range r = run("mse", histogram_of(v), 8, false);
  EXPECT_EQ(r.lo, histogram_of(v).min());
  EXPECT_NEAR(r.hi, expected, 0.05);
}

TEST(QuantRange, UniformDataKeepsFullRangeUnderEveryScheme) {
  const Histogram& h = uniform_minus1_to_3();
  for (const char* scheme : {"minmax", "percentile:99.99", "entropy", "mse"}) {
    Range r = run(scheme, h, 8, false);
    EXPECT_NEAR(r.lo, -1.0, 0.08) << scheme;
    EXPECT_NEAR(r.hi, 3.0, 0.08) << scheme;
  }
  for (const char* scheme : {"minmax", "percentile:99.99", "entropy", "mse"}) {
    Range r = run(scheme, h, 8, true);
    EXPECT_NEAR(r.hi, 3.0, 0.08) << scheme;
  }
}

TEST(QuantRange, EmptyHistogramAndBadSpecs) {
  Histogram empty;
  for (const char* scheme : {"minmax", "percentile", "entropy", "mse"}) {
    Range r = run(scheme, empty, 8, false);
    EXPECT_EQ(r.lo, 0.0);
    EXPECT_EQ(r.hi, 0.0);
  }
  EXPECT_THROW(parse<RangeMethod>("kl"), Error);
  EXPECT_THROW(make_range_scheme(static_cast<RangeMethod>(9)), Error);  // a cast outside the names
  EXPECT_THROW(make_range_scheme(RangeMethod::kPercentile, 120), Error);
  EXPECT_THROW(make_range_scheme(RangeMethod::kPercentile, -1), Error);
  // The names reports write.
  EXPECT_EQ(make_range_scheme(RangeMethod::kPercentile, 99.9)->name(), "percentile:99.9");
  EXPECT_EQ(make_range_scheme(RangeMethod::kPercentile)->name(), "percentile:99.99");
  EXPECT_EQ(make_range_scheme(RangeMethod::kMinMax)->name(), "minmax");
  EXPECT_EQ(make_range_scheme(RangeMethod::kEntropy)->name(), "entropy");
  EXPECT_EQ(make_range_scheme(RangeMethod::kMse)->name(), "mse");
}

TEST(QuantRange, AbsBinsFold) {
  // Span 3 -> bin width 2^-11. +1.5 is in bin 3072 = [1.5, 1.5 + w); -1.5 is in global bin
  // -3072 = [-1.5, -1.5 + w), i.e. |x| in (1.5 - w, 1.5], which folds onto bin 3071.
  std::vector<float> v = {-1.5f, 1.5f, -0.25f, 0.0f};
  Histogram h = histogram_of(v);
  ASSERT_EQ(h.exponent(), -11);
  std::vector<double> a = abs_bins(h);
  ASSERT_EQ(a.size(), 3073u);
  EXPECT_EQ(a[3072], 1.0);
  EXPECT_EQ(a[3071], 1.0);
  EXPECT_EQ(a[511], 1.0);
  EXPECT_EQ(a[0], 1.0);
  double total = 0;
  for (double c : a) total += c;
  EXPECT_EQ(total, 4.0);
}

}  // namespace edgeq
