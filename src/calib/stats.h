// Stats: per-value calibration statistics of one model (min, max, count, histogram), streamed
// image by image through executor hooks, saved to disk and merged across shards. Merging is
// exact: stats of shards merged equal the stats of one pass over all their images.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calib/histogram.h"
#include "core/tensor.h"

namespace edgeq {

// Which images statistics saw: the seeded sample (calibrate's seed and n), the shards of it, and
// the images by content. Merging refuses stats of another sample, the same shard twice and an
// image seen twice, so merged stats never count an image twice.
struct StatsSample {
  uint64_t seed = 0;
  uint64_t n = 0;           // images asked for (before clamping to the images available)
  int shard_count = 1;      // the sample split into this many shards (i/N) ...
  std::vector<int> shards;  // ... of which these, ascending; every shard is written as 0 of 1
  std::vector<std::string> images;  // SHA-256 of each image seen (size and pixels), ascending

  bool operator==(const StatsSample& o) const {
    return seed == o.seed && n == o.n && shard_count == o.shard_count && shards == o.shards &&
           images == o.images;
  }
};

// Sorts the shards and images; a sample of every shard becomes shard 0 of 1 (one pass over all
// images and its shards merged give the same bytes).
void normalize_sample(StatsSample& s);

struct Stats {
  // 2 added histogram sampling (histogram_stride, binned); 3 the sample (StatsSample).
  static constexpr int kVersion = 3;

  std::string model_sha256;   // of the model file's bytes (core/sha256.h)
  std::string preprocessing;  // e.g. "letterbox 640x640 pad 114, RGB, /255, NCHW"
  int64_t images = 0;
  // Histogram sampling of every observe() (Histogram::add's max_stride): 1 bins every value.
  int histogram_stride = 1;
  std::map<std::string, Histogram> values;
  // Absent in files of versions 1 and 2 and in stats built by hand (a calibration worker's):
  // such stats merge only with each other.
  std::optional<StatsSample> sample;

  // Adds a float32 tensor's values to the value's histogram. Not thread-safe for a value name
  // seen for the first time.
  void observe(const std::string& value, const Tensor& t);
  // Throws naming the value when it has no statistics.
  const Histogram& at(const std::string& value) const;
};

// a + b. Refuses stats of different models, preprocessing, histogram sampling, value sets that
// differ (naming the first value only one of them has), and samples that do not add up: one with
// a sample and one without, another seed, n or shard count, a shard or an image in both.
Stats merge_stats(const Stats& a, const Stats& b);
// merge_stats(a, b) into a; a is left as it was when the stats do not match (it throws first).
void merge_into(Stats& a, const Stats& b);

// File form: CBOR (nlohmann) of a versioned object; plain JSON when the path ends in ".json".
// Written atomically.
void save_stats(const Stats& s, const std::string& path);
// Throws a one-line error naming the file for missing, malformed or newer-version files; a file
// that is neither is refused from its first bytes, before the rest is read.
Stats load_stats(const std::string& path);
// The same for a file's bytes; errors name `path`.
Stats parse_stats(const std::string& bytes, const std::string& path);

}  // namespace edgeq
