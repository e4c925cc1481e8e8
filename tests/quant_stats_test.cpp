// Histogram and Stats: exact bins against a brute-force reference of the binning rule, exact
// merges (sharded == one pass), quantiles, file round trips and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "calib/histogram.h"
#include "calib/stats.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "core/sha256.h"
#include "encode/encodings_json.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

// Reference of the documented binning rule, written independently: the smallest k >= -64 for
// which floor(max / 2^k) - floor(min / 2^k) + 1 <= 8192 and max|x| / 2^k < 2^52; each value
// counted in bin floor(x / 2^k).
struct RefHist {
  int k = 0;
  std::map<int64_t, uint64_t> bins;
};

RefHist reference(const std::vector<float>& v) {
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  RefHist r;
  for (r.k = -64;; ++r.k) {
    double w = std::pow(2.0, r.k);
    double amax = std::max(std::fabs(lo), std::fabs(hi));
    if (amax / w >= std::pow(2.0, 52)) continue;
    if (std::floor(hi / w) - std::floor(lo / w) + 1 <= 8192) break;
  }
  double w = std::pow(2.0, r.k);
  for (float x : v) r.bins[static_cast<int64_t>(std::floor(x / w))]++;
  return r;
}

std::vector<float> gaussian_with_outliers(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.3f, 1.5f);
  std::vector<float> v(n);
  for (auto& x : v) x = g(rng);
  v[n / 3] = 57.0f;
  v[n / 2] = -23.5f;
  return v;
}

std::string temp_path(const std::string& name) {
  static const std::string dir = test::temp_dir("quant_stats");
  return dir + "/" + name;
}

}  // namespace

TEST(QuantSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(QuantHistogram, HandComputedExponent) {
  // [0.25, 1]: k = -13 gives 8192 - 2048 + 1 = 6145 bins; k = -14 would need 12289.
  std::vector<float> v = {0.25f, 0.5f, 0.75f, 1.0f};
  Histogram h;
  h.add(v.data(), v.size());
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 0.25f);
  EXPECT_EQ(h.max(), 1.0f);
  EXPECT_EQ(h.exponent(), -13);
  EXPECT_EQ(h.first_bin(), 2048);
  EXPECT_EQ(h.bins().size(), 6145u);
  EXPECT_EQ(h.bins()[0], 1u);
  EXPECT_EQ(h.bins()[2048], 1u);
  EXPECT_EQ(h.bins()[6144], 1u);
}

TEST(QuantHistogram, MatchesBruteForceReference) {
  std::vector<float> v = gaussian_with_outliers(100000, 1);
  Histogram h;
  for (size_t off = 0; off < v.size(); off += 7919)  // uneven batches, some parallel
    h.add(v.data() + off, std::min<size_t>(7919, v.size() - off));
  Histogram big;
  big.add(v.data(), v.size());  // one parallel batch
  RefHist r = reference(v);
  EXPECT_EQ(h.exponent(), r.k);
  EXPECT_EQ(h.first_bin(), r.bins.begin()->first);
  EXPECT_EQ(h.first_bin() + static_cast<int64_t>(h.bins().size()) - 1, r.bins.rbegin()->first);
  for (const auto& kv : r.bins) ASSERT_EQ(h.bins()[kv.first - h.first_bin()], kv.second);
  uint64_t total = 0;
  for (uint64_t c : h.bins()) total += c;
  EXPECT_EQ(total, v.size());
  EXPECT_TRUE(h == big);
}

TEST(QuantHistogram, ShardedMergeEqualsOnePass) {
  std::vector<float> v = gaussian_with_outliers(200000, 2);
  // A shard with a tiny range makes its bins much finer than the others'.
  for (size_t i = 0; i < 5000; ++i) v[i] = 1e-3f * static_cast<float>(i % 17) / 17.0f;
  Histogram one;
  one.add(v.data(), v.size());

  size_t cut1 = 5000, cut2 = 120000;
  Histogram a, b, c;
  a.add(v.data(), cut1);
  b.add(v.data() + cut1, cut2 - cut1);
  c.add(v.data() + cut2, v.size() - cut2);
  EXPECT_LT(a.exponent(), one.exponent());

  Histogram ab = a;
  ab.merge(b);
  ab.merge(c);
  EXPECT_TRUE(ab == one);
  Histogram cba = c;  // other order
  cba.merge(b);
  cba.merge(a);
  EXPECT_TRUE(cba == one);
  EXPECT_EQ(cba.min(), one.min());
  EXPECT_EQ(cba.max(), one.max());
  EXPECT_EQ(cba.quantile(0.9999), one.quantile(0.9999));

  // Shuffled single pass too.
  std::vector<float> s = v;
  std::shuffle(s.begin(), s.end(), std::mt19937(3));
  Histogram shuffled;
  for (size_t off = 0; off < s.size(); off += 40000)
    shuffled.add(s.data() + off, std::min<size_t>(40000, s.size() - off));
  EXPECT_TRUE(shuffled == one);
}

TEST(QuantHistogram, QuantilesAndTails) {
  // 0, 1, ..., 999: the median lies in [499, 500] and 10 values are above 989.5.
  std::vector<float> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = static_cast<float>(i);
  Histogram h;
  h.add(v.data(), v.size());
  EXPECT_NEAR(h.quantile(0.5), 499.5, 0.6);
  EXPECT_NEAR(h.quantile(0.999), 999.0, 1.1);
  EXPECT_EQ(h.quantile(0.0), 0.0);
  EXPECT_EQ(h.quantile(1.0), 999.0);
  EXPECT_NEAR(h.count_above(989.5), 10.0, 0.6);
  EXPECT_NEAR(h.count_below(9.5), 10.0, 0.6);
  EXPECT_EQ(h.count_above(999.0), 0.0);
  EXPECT_EQ(h.count_below(0.0), 0.0);
  EXPECT_EQ(h.count_above(-1.0), 1000.0);
}

TEST(QuantHistogram, NonFiniteValuesAreCountedApart) {
  std::vector<float> v = {1.0f, NAN, INFINITY, -INFINITY, -2.0f};
  Histogram h;
  h.add(v.data(), v.size());
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.nan_count(), 1u);
  EXPECT_EQ(h.inf_count(), 2u);
  EXPECT_EQ(h.min(), -2.0f);
  EXPECT_EQ(h.max(), 1.0f);
  Histogram only_nan;
  float n = NAN;
  only_nan.add(&n, 1);
  EXPECT_TRUE(only_nan.empty());
  only_nan.merge(h);
  EXPECT_EQ(only_nan.nan_count(), 2u);
  EXPECT_EQ(only_nan.count(), 2u);
}

// NaN and +-Inf scattered through a batch large enough for the vector scans, the parallel parts
// and sampling: counted apart, never in min / max or the bins; every value binned, the bins equal
// those of the finite values alone.
TEST(QuantHistogram, NonFiniteValuesInLargeBatchesAreCountedApart) {
  const int64_t n = 100003;
  std::vector<float> v(n), finite;
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.f, 2.f);
  uint64_t nan = 0, inf = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 997 == 3 || i == n - 1) {
      v[i] = NAN;
      ++nan;
    } else if (i % 4999 == 17) {
      v[i] = (i / 4999) % 2 ? INFINITY : -INFINITY;
      ++inf;
    } else {
      v[i] = g(rng);
      finite.push_back(v[i]);
    }
  }
  const float lo = *std::min_element(finite.begin(), finite.end());
  const float hi = *std::max_element(finite.begin(), finite.end());
  for (int stride : {1, 64}) {
    Histogram h;
    h.add(v.data(), n, stride);
    EXPECT_EQ(h.nan_count(), nan) << stride;
    EXPECT_EQ(h.inf_count(), inf) << stride;
    EXPECT_EQ(h.count(), finite.size()) << stride;
    EXPECT_EQ(h.min(), lo) << stride;
    EXPECT_EQ(h.max(), hi) << stride;
    uint64_t in_bins = 0;
    for (uint64_t b : h.bins()) in_bins += b;
    EXPECT_EQ(in_bins, h.binned()) << stride;
    if (stride == 1) {
      Histogram ref;
      ref.add(finite.data(), static_cast<int64_t>(finite.size()));
      EXPECT_EQ(h.bins(), ref.bins());
    }
  }
}

// A sampled batch takes its min / max from the values beyond its tail cuts, or else from the cuts
// (values of the batch). Clipped values tie at both ends, so no value lies beyond either cut:
// min and max must still be exact, as in a batch binned whole.
TEST(QuantHistogram, SampledBatchWithTiedExtremesKeepsExactMinMax) {
  const int64_t n = 1 << 18;
  std::vector<float> v(n);
  std::mt19937 rng(9);
  std::normal_distribution<float> g(0.f, 1.f);
  for (float& x : v) x = std::clamp(g(rng), -1.5f, 1.25f);  // about 7% and 11% at the ends
  v[77] = -1.5f;
  Histogram sampled, whole;
  sampled.add(v.data(), n, 64);
  whole.add(v.data(), n, 1);
  EXPECT_TRUE(sampled.sampled());
  EXPECT_EQ(sampled.min(), -1.5f);
  EXPECT_EQ(sampled.max(), 1.25f);
  EXPECT_EQ(sampled.count(), whole.count());
  EXPECT_EQ(sampled.bins().size(), whole.bins().size());
  // One value beyond: it is the maximum.
  v[1000] = 2.0f;
  Histogram one;
  one.add(v.data(), n, 64);
  EXPECT_EQ(one.max(), 2.0f);
  EXPECT_EQ(one.min(), -1.5f);
}

TEST(QuantHistogram, ConstantValue) {
  std::vector<float> v(100, 3.0f);
  Histogram h;
  h.add(v.data(), v.size());
  EXPECT_EQ(h.bins().size(), 1u);
  EXPECT_EQ(h.quantile(0.5), 3.0);
  EXPECT_EQ(h.count_below(3.0), 0.0);
  EXPECT_EQ(h.count_above(2.0), 100.0);
}

// Sampling, checked by hand on v[i] = i, n = 65536, max stride 64: stride min(64, 65536 / 4096)
// = 16, so 16 groups of 16 chunks of 256 values and one chunk per group in the sample. Every value
// beyond the cuts is a tail, binned with weight 1; the sample's values within them weigh 16.
TEST(QuantHistogram, SampledBatchHandComputed) {
  EXPECT_EQ(Histogram::sample_stride(65536, 64), 16);
  EXPECT_EQ(Histogram::sample_stride(65536, 1), 1);
  EXPECT_EQ(Histogram::sample_stride(8191, 64), 1);  // small batches are binned whole
  EXPECT_EQ(Histogram::sample_stride(8192, 64), 2);
  EXPECT_EQ(Histogram::sample_stride(100 << 20, 64), 64);
  std::vector<float> v(65536);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  Histogram h;
  BatchSample keep;
  h.add(v.data(), v.size(), 64, NAN, &keep);
  EXPECT_TRUE(h.sampled());
  EXPECT_EQ(h.count(), 65536u);
  EXPECT_EQ(h.min(), 0.0f);
  EXPECT_EQ(h.max(), 65535.0f);
  ASSERT_EQ(keep.stride, 16);
  // The cuts lie 0.2% of the sample in from each end: inside the first and the last group, as the
  // sample holds one 256-value chunk of each 4096.
  EXPECT_GT(keep.cut_lo, 0);
  EXPECT_LT(keep.cut_lo, 4096);
  EXPECT_GT(keep.cut_hi, 65535 - 4096);
  EXPECT_LT(keep.cut_hi, 65535);
  // Tails: exactly the values beyond the cuts.
  std::vector<float> tails = keep.tails;
  std::sort(tails.begin(), tails.end());
  std::vector<float> expected_tails;
  for (float x : v)
    if (x < keep.cut_lo || x > keep.cut_hi) expected_tails.push_back(x);
  EXPECT_EQ(tails, expected_tails);
  // Bulk: within the cuts, whole 256-value chunks, one chunk per group of 4096 values.
  std::map<int, std::set<int>> chunks_of_group;
  for (float x : keep.bulk) {
    ASSERT_TRUE(x >= keep.cut_lo && x <= keep.cut_hi) << x;
    int i = static_cast<int>(x);
    chunks_of_group[i / 4096].insert(i / 256);
  }
  EXPECT_GE(chunks_of_group.size(), 15u);  // a group's chunk may fall wholly in a tail
  for (const auto& [g, chunks] : chunks_of_group) EXPECT_EQ(chunks.size(), 1u) << "group " << g;
  EXPECT_EQ(h.binned(), keep.tails.size() + 16 * keep.bulk.size());
  // The bins are 8 wide: the outermost hold 8 tail values of weight 1.
  ASSERT_EQ(h.bin_width(), 8.0);
  EXPECT_EQ(h.bins().front(), 8u);
  EXPECT_EQ(h.bins().back(), 8u);
  // At least one value lies above any edge below the max.
  EXPECT_GE(h.count_above(65534.5), 1.0);
  EXPECT_GE(h.count_below(0.5), 1.0);
}

// On a Gaussian with outliers, sampled bins give the full histogram's quantiles within a small
// fraction of the spread; min, max and counts are exact; batches merged equal one histogram.
TEST(QuantHistogram, SampledQuantilesTrackFullAndMergeExactly) {
  // 8 images of 2^20 values (sd 1.5): stride 64, so 2^17 values are binned in all.
  std::vector<float> v = gaussian_with_outliers(1 << 23, 5);
  const int64_t batch = 1 << 20;
  Histogram full, sampled, parts[8];
  for (int b = 0; b < 8; ++b) {
    full.add(v.data() + b * batch, batch);
    sampled.add(v.data() + b * batch, batch, 64);
    parts[b].add(v.data() + b * batch, batch, 64);
  }
  EXPECT_FALSE(full.sampled());
  EXPECT_EQ(sampled.count(), full.count());
  EXPECT_EQ(sampled.min(), full.min());
  EXPECT_EQ(sampled.max(), full.max());
  EXPECT_NEAR(double(sampled.binned()), double(full.count()), 1e-3 * full.count());
  for (double q : {0.01, 0.25, 0.5, 0.75, 0.99})
    EXPECT_NEAR(sampled.quantile(q), full.quantile(q), 0.05) << q;
  // About 13 binned values lie beyond each 1e-4 tail: the estimate's standard error there is
  // sqrt(1e-4 / 2^17) / density(3.72 sd) = 0.1; allow three of them (5% of the tail's 5.6 units).
  for (double q : {0.0001, 0.9999}) EXPECT_NEAR(sampled.quantile(q), full.quantile(q), 0.3) << q;
  // The two outliers (57 and -23.5) are in the bins with their own weight.
  EXPECT_GE(sampled.count_above(50.0), 1.0);
  EXPECT_LT(sampled.count_above(50.0), 2.5);
  Histogram merged = parts[5];
  for (int b : {0, 7, 2, 1, 6, 3, 4}) merged.merge(parts[b]);
  EXPECT_TRUE(merged == sampled);
}

// Binning a sample split by another value's cuts: for y = 2x (exact and order-preserving),
// add_sample(2 * bulk, 2 * tails) of x's split gives the histogram of adding y itself.
TEST(QuantHistogram, AddSampleOfAnOrderPreservingFunctionEqualsAddingIt) {
  std::vector<float> x = gaussian_with_outliers(409600, 6);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = 2.0f * x[i];
  Histogram hx, direct, derived;
  BatchSample keep;
  BatchScan scan = hx.add(x.data(), x.size(), 64, NAN, &keep);
  ASSERT_GT(keep.stride, 1);
  direct.add(y.data(), y.size(), 64);
  auto twice = [](std::vector<float> v) {
    for (float& f : v) f *= 2.0f;
    return v;
  };
  derived.add_sample(scan.finite, 2.0f * scan.lo, 2.0f * scan.hi, keep.stride, twice(keep.bulk),
                     twice(keep.tails));
  EXPECT_TRUE(derived == direct);
  EXPECT_TRUE(derived.sampled());
}

// Every value binned (stride 1) and sampled (images of 20000 values: stride 2): shards merged
// equal one pass, and files round trip exactly.
TEST(QuantStats, ShardedStatsMergedEqualOnePassAndRoundTrip) {
  std::vector<float> act = gaussian_with_outliers(200000, 4);
  std::vector<float> act2(200000);
  for (size_t i = 0; i < act2.size(); ++i) act2[i] = std::sin(0.001f * i) * 40.0f + 40.0f;
  auto image = [&](int i, const std::vector<float>& src) {
    return Tensor::from_vector<float>(
        {1, 20000}, std::vector<float>(src.begin() + i * 20000, src.begin() + (i + 1) * 20000));
  };
  for (int stride : {1, 64}) {
    Stats one, s1, s2;
    for (Stats* s : {&one, &s1, &s2}) {
      s->model_sha256 = sha256_hex("model bytes");
      s->preprocessing = "letterbox 640 pad 114 rgb /255 nchw";
      s->histogram_stride = stride;
    }
    for (int i = 0; i < 10; ++i) {
      Stats& shard = i < 4 ? s1 : s2;
      for (Stats* s : {&one, &shard}) {
        s->observe("/model.0/conv/Conv_output_0", image(i, act));
        s->observe("/model.23/Concat_5_output_0", image(i, act2));
        s->images++;
      }
    }
    EXPECT_EQ(one.at("/model.0/conv/Conv_output_0").sampled(), stride > 1);
    Stats merged = merge_stats(s1, s2);
    EXPECT_EQ(merged.images, 10);
    ASSERT_EQ(merged.values.size(), 2u);
    for (const auto& kv : one.values) {
      EXPECT_TRUE(merged.at(kv.first) == kv.second) << kv.first;
      EXPECT_EQ(merged.at(kv.first).min(), kv.second.min());
      EXPECT_EQ(merged.at(kv.first).max(), kv.second.max());
    }
    // Through files: CBOR and JSON both round trip exactly.
    for (const std::string ext : {".stats", ".json"}) {
      save_stats(s1, temp_path("s1" + ext));
      save_stats(s2, temp_path("s2" + ext));
      Stats f = merge_stats(load_stats(temp_path("s1" + ext)), load_stats(temp_path("s2" + ext)));
      EXPECT_EQ(f.model_sha256, one.model_sha256);
      EXPECT_EQ(f.preprocessing, one.preprocessing);
      EXPECT_EQ(f.images, 10);
      EXPECT_EQ(f.histogram_stride, stride);
      for (const auto& kv : one.values) EXPECT_TRUE(f.at(kv.first) == kv.second) << ext;
    }
  }
}

namespace {

// merge_stats(a, b) throws an Error whose message holds `text`.
void expect_merge_error(const Stats& a, const Stats& b, const std::string& text) {
  try {
    merge_stats(a, b);
    FAIL() << "expected an error naming " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(QuantStats, MergeRefusesOtherModelsAndValueSets) {
  Stats a, b;
  a.model_sha256 = sha256_hex("model a");
  b.model_sha256 = sha256_hex("model b");
  float x = 1.0f;
  a.values["v"].add(&x, 1);
  b.values["v"].add(&x, 1);
  expect_merge_error(a, b, "different models");
  b.model_sha256 = a.model_sha256;
  b.values["w"].add(&x, 1);
  expect_merge_error(a, b, "'w'");
  b.values.erase("w");
  b.histogram_stride = 64;  // sampled one way and binned whole the other
  expect_merge_error(a, b, "histogram sampling");
  b.histogram_stride = a.histogram_stride;
  b.preprocessing = "other";
  EXPECT_THROW(merge_stats(a, b), Error);
  EXPECT_THROW(a.at("missing"), Error);
}

TEST(QuantStats, LoadRejectsMalformedFiles) {
  std::string p = temp_path("garbage.stats");
  write_file_atomic(p, "this is not a stats file");
  try {
    load_stats(p);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos);
  }
  // A histogram whose bins do not add up to its binned count, one that bins more values than it
  // counts, and one that is sampled in a file that says every value was binned.
  Stats s;
  s.model_sha256 = "x";
  std::vector<float> v = {1.0f, 2.0f};
  s.values["v"].add(v.data(), v.size());
  std::string jp = temp_path("tampered.json");
  for (auto [field, value] :
       {std::pair<const char*, int>{"binned", 3}, {"count", 1}, {"count", 3}}) {
    save_stats(s, jp);
    nlohmann::json j = nlohmann::json::parse(read_file(jp));
    j["values"]["v"][field] = value;
    write_file_atomic(jp, j.dump());
    EXPECT_THROW(load_stats(jp), Error) << field << " = " << value;
  }
  nlohmann::json j;
  // A newer version.
  save_stats(s, jp);
  j = nlohmann::json::parse(read_file(jp));
  j["version"] = 99;
  write_file_atomic(jp, j.dump());
  EXPECT_THROW(load_stats(jp), Error);
  EXPECT_THROW(load_stats(temp_path("does_not_exist.stats")), Error);
}

}  // namespace edgeq

namespace edgeq {
namespace {

// Stats of `images` (names hashed as their contents) as calibrate records them: shard i of n of
// the sample (seed, n).
Stats shard_stats(std::vector<std::string> images, int index, int count, uint64_t seed = 0,
                  uint64_t n = 8) {
  Stats s;
  s.model_sha256 = sha256_hex("model");
  s.preprocessing = "letterbox 64x64";
  StatsSample sample;
  sample.seed = seed;
  sample.n = n;
  sample.shard_count = count;
  sample.shards = {index};
  for (const std::string& im : images) {
    const float x = static_cast<float>(im.size());
    s.values["v"].add(&x, 1);
    s.images++;
    sample.images.push_back(sha256_hex(im));
  }
  normalize_sample(sample);
  s.sample = sample;
  return s;
}

// Issue 46: `stats merge s0 s0` (or a copy of a shard) counted its images twice, and shards of
// another --seed or --n merged silently. Stats record their sample now: the same shard twice,
// an image in both, another seed, n or split, or stats without a sample beside ones with, are
// refused; the shards of one sample merge to what one pass over all of it records.
TEST(QuantStats, MergeRefusesDuplicatesAndOtherSamples) {
  const Stats s0 = shard_stats({"a", "bb"}, 0, 2), s1 = shard_stats({"ccc", "dddd"}, 1, 2);
  const Stats merged = merge_stats(s0, s1);
  ASSERT_TRUE(merged.sample.has_value());
  EXPECT_TRUE(*merged.sample == *shard_stats({"a", "bb", "ccc", "dddd"}, 0, 1).sample);
  EXPECT_EQ(merged.sample->shard_count, 1);  // every shard: written as one pass
  expect_merge_error(s0, s0, "shard 0/2 is in both");
  expect_merge_error(merged, s1, "2 images are in both");
  expect_merge_error(s0, shard_stats({"e"}, 1, 2, 7), "different samples (seed 0 n 8 vs seed 7");
  expect_merge_error(s0, shard_stats({"e"}, 1, 2, 0, 9), "different samples");
  expect_merge_error(s0, shard_stats({"e"}, 1, 4), "split in different ways");
  expect_merge_error(shard_stats({"a"}, 0, 3), shard_stats({"a"}, 1, 3), "1 image is in both");
  Stats old = s1;
  old.sample.reset();
  expect_merge_error(s0, old, "before stats version 3");
  Stats a = s0;
  EXPECT_THROW(merge_into(a, s0), Error);
  EXPECT_EQ(a.images, 2);  // left as it was
  // Partial merges keep the shards apart: 0 and 1 of 3, then 2 completes the sample.
  const Stats t01 = merge_stats(shard_stats({"a"}, 0, 3), shard_stats({"b"}, 1, 3));
  EXPECT_EQ(t01.sample->shards, (std::vector<int>{0, 1}));
  expect_merge_error(t01, shard_stats({"c"}, 1, 3), "shard 1/3 is in both");
  EXPECT_EQ(merge_stats(t01, shard_stats({"c"}, 2, 3)).sample->shard_count, 1);
}

// The sample round trips through both file forms; files of version 2 (no sample) still load,
// and a sample that does not add up is refused naming the file.
TEST(QuantStats, SampleRoundTripsAndOldFilesLoad) {
  Stats s = shard_stats({"a", "bb", "ccc"}, 1, 4, 0xFFFFFFFFFFFFFFFFull, 1000);
  for (const std::string ext : {".stats", ".json"}) {
    save_stats(s, temp_path("sample" + ext));
    const Stats back = load_stats(temp_path("sample" + ext));
    ASSERT_TRUE(back.sample.has_value()) << ext;
    EXPECT_TRUE(*back.sample == *s.sample) << ext;
  }
  const std::string jp = temp_path("sample.json");
  nlohmann::json j = nlohmann::json::parse(read_file(jp));
  EXPECT_EQ(j["version"], 3);
  j["version"] = 2;
  j.erase("sample");
  write_file_atomic(jp, j.dump());
  EXPECT_FALSE(load_stats(jp).sample.has_value());
  for (auto [field, value] : {std::pair<const char*, nlohmann::json>{"shards", {4}},
                              {"shards", nlohmann::json::array()},
                              {"image_sha256", {"a", "b", "c"}},
                              {"image_sha256", nlohmann::json::array()},
                              {"seed", -1}}) {
    save_stats(s, jp);
    j = nlohmann::json::parse(read_file(jp));
    j["sample"][field] = value;
    write_file_atomic(jp, j.dump());
    try {
      load_stats(jp);
      ADD_FAILURE() << field << " = " << value.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(jp), std::string::npos) << e.what();
    }
  }
}

// Issue 46: a 3.9 GB sparse file was read whole before "neither CBOR nor JSON". Stats, .npy, ONNX
// and JSON files are known by their first bytes now: such a file is refused having read a few KiB.
TEST(QuantStats, ForeignFilesAreRefusedFromTheirFirstBytes) {
  const std::string big = temp_path("sparse.stats");
  {
    std::FILE* f = std::fopen(big.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  std::filesystem::resize_file(big, 3900ull << 20);  // sparse: no blocks on disk
  auto read_bytes = [] {  // this process's bytes read so far (/proc/self/io rchar)
    std::string io = read_file("/proc/self/io", 4096);
    return std::stoull(io.substr(io.find("rchar:") + 6));
  };
  for (const char* what : {"stats", "npy", "onnx", "encodings"}) {
    if (std::string(what) == "encodings")  // under its 256 MiB limit
      std::filesystem::resize_file(big, 200ull << 20);
    const uint64_t before = read_bytes();
    try {
      if (std::string(what) == "stats") load_stats(big);
      if (std::string(what) == "npy") load_npy(big);
      if (std::string(what) == "onnx") load_onnx(big);
      if (std::string(what) == "encodings") load_encodings(big);
      ADD_FAILURE() << what << ": a file of zeros was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(big), std::string::npos) << e.what();
    }
    EXPECT_LT(read_bytes() - before, 1u << 20) << what << " read the file whole";
  }
  std::filesystem::remove(big);
  // A CBOR map that is not ours, and a truncated stats file of ours, are still told apart.
  Stats s = shard_stats({"a"}, 0, 1);
  save_stats(s, temp_path("ok.stats"));
  const std::string ok = read_file(temp_path("ok.stats"));
  write_file_atomic(temp_path("cut.stats"), ok.substr(0, ok.size() / 2));
  EXPECT_THROW(load_stats(temp_path("cut.stats")), Error);
  EXPECT_TRUE(load_stats(temp_path("ok.stats")).sample.has_value());
  const std::vector<uint8_t> other = nlohmann::json::to_cbor({{"alpha", 1}, {"format", "x"}});
  write_file_atomic(temp_path("other.stats"), std::string(other.begin(), other.end()));
  EXPECT_THROW(load_stats(temp_path("other.stats")), Error);
}

}  // namespace
}  // namespace edgeq
