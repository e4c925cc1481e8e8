// Stats: per-value calibration statistics of one model (min, max, count, histogram), streamed
// image by image through executor hooks, saved to disk and merged across shards. Merging is
// exact: stats of shards merged equal the stats of one pass over all their images.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/tensor.h"
#include "quant/histogram.h"

namespace edgeq {

struct Stats {
  static constexpr int kVersion = 2;  // 2 added histogram sampling (histogram_stride, binned)

  std::string model_sha256;   // of the model file's bytes (core/sha256.h)
  std::string preprocessing;  // e.g. "letterbox 640x640 pad 114, RGB, /255, NCHW"
  int64_t images = 0;
  // Histogram sampling of every observe() (Histogram::add's max_stride): 1 bins every value.
  int histogram_stride = 1;
  std::map<std::string, Histogram> values;

  // Adds a float32 tensor's values to the value's histogram. Not thread-safe for a value name
  // seen for the first time.
  void observe(const std::string& value, const Tensor& t);
  // Throws naming the value when it has no statistics.
  const Histogram& at(const std::string& value) const;
};

// a + b. Refuses stats of different models, preprocessing, histogram sampling, and value sets
// that differ (naming the first value only one of them has).
Stats merge_stats(const Stats& a, const Stats& b);
// merge_stats(a, b) into a; a is left as it was when the stats do not match (it throws first).
void merge_into(Stats& a, const Stats& b);

// File form: CBOR (nlohmann) of a versioned object; plain JSON when the path ends in ".json".
// Written atomically.
void save_stats(const Stats& s, const std::string& path);
// Throws a one-line error naming the file for missing, malformed or newer-version files.
Stats load_stats(const std::string& path);
// The same for a file's bytes; errors name `path`.
Stats parse_stats(const std::string& bytes, const std::string& path);

}  // namespace edgeq
