#include "calib/stats.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_number.h"
#include "core/json_text.h"

namespace edgeq {
namespace {

constexpr const char* kFormat = "edgeq-stats";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string short_hash(const std::string& h) {
  return h.empty() ? "(none)" : h.substr(0, 12);
}

std::string shard_list(const StatsSample& s) {
  std::string out;
  for (int i : s.shards) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out + "/" + std::to_string(s.shard_count);
}

// The elements of two ascending lists that are in both.
template <typename T>
std::vector<T> common(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

void normalize_sample(StatsSample& s) {
  std::sort(s.shards.begin(), s.shards.end());
  std::sort(s.images.begin(), s.images.end());
  if (s.shard_count > 1 && s.shards.size() == static_cast<size_t>(s.shard_count)) {
    s.shard_count = 1;
    s.shards = {0};
  }
}

namespace {

// Checks that a and b are disjoint parts of one sample; a becomes their union.
void merge_sample(StatsSample& a, const StatsSample& b) {
  EDGEQ_CHECK(a.seed == b.seed && a.n == b.n, "cannot merge stats of different samples (seed ",
              a.seed, " n ", a.n, " vs seed ", b.seed, " n ", b.n,
              "); calibrate every shard with the same seed and n");
  const std::vector<int> shards = common(a.shards, b.shards);
  EDGEQ_CHECK(a.shard_count != b.shard_count || shards.empty(), "cannot merge stats: shard ",
              shards.empty() ? 0 : shards[0], "/", a.shard_count,
              " is in both (the same shard twice, or a copy of it)");
  const std::vector<std::string> images = common(a.images, b.images);
  EDGEQ_CHECK(images.empty(), "cannot merge stats: ", images.size(), " image",
              images.size() == 1 ? " is" : "s are", " in both (SHA-256 ",
              short_hash(images.empty() ? "" : images[0]),
              "...); merged stats would count them twice");
  EDGEQ_CHECK(a.shard_count == b.shard_count, "cannot merge stats of shards ", shard_list(a),
              " and ", shard_list(b), ": the sample is split in different ways");
  StatsSample out = a;
  out.shards.insert(out.shards.end(), b.shards.begin(), b.shards.end());
  out.images.insert(out.images.end(), b.images.begin(), b.images.end());
  normalize_sample(out);
  a = std::move(out);
}

// What a stats file's first bytes say it is: JSON (an object, after white space) or the CBOR
// save_stats writes (a map whose first key, in nlohmann's sorted order, is "format").
enum class Form { kJson, kCbor, kOther };
constexpr size_t kHeadBytes = 4096;

Form form_of(std::string_view head) {
  head = head.substr(0, kHeadBytes);
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') return Form::kJson;
  if (head.size() < 8) return Form::kOther;
  const auto b = static_cast<unsigned char>(head[0]);
  const bool map = (b >= 0xA0 && b <= 0xBB) || b == 0xBF;  // CBOR major type 5
  const size_t key = 1 + (b >= 0xB8 && b <= 0xBB ? size_t{1} << (b - 0xB8) : 0);
  // 0x66 ('f') heads a 6-byte text string
  return map && head.size() >= key + 7 && head.substr(key, 7) == "fformat" ? Form::kCbor
                                                                           : Form::kOther;
}

[[noreturn]] void not_stats(const std::string& path) {
  fail("stats file ", path, " is not an edgeq stats file (neither CBOR nor JSON)");
}

// The "sample" object of a stats file: shards within the count, hashes of 64 hex digits, one per
// image the file counts, each list ascending as written.
StatsSample parse_sample(const nlohmann::json& j, int64_t images, const std::string& file) {
  EDGEQ_CHECK(j.is_object(), file, ": 'sample' is not an object");
  const std::string what = file + ", sample";
  StatsSample s;
  s.seed = json_number_at<uint64_t>(j, "seed", what);
  s.n = json_number_at<uint64_t>(j, "n", what);
  s.shard_count = json_number_at<int>(j, "shard_count", what);
  EDGEQ_CHECK(s.shard_count >= 1, what, ": shard_count ", s.shard_count, " is not positive");
  const nlohmann::json& shards = j.at("shards");
  const nlohmann::json& hashes = j.at("image_sha256");
  EDGEQ_CHECK(shards.is_array() && !shards.empty() && shards.size() <= size_t(s.shard_count), what,
              ": 'shards' is not a list of 1 to ", s.shard_count, " shards");
  for (const nlohmann::json& v : shards) {
    const int i = json_number<int>(v, what + " shard");
    EDGEQ_CHECK(i >= 0 && i < s.shard_count && (s.shards.empty() || i > s.shards.back()), what,
                ": shard ", i, " is not in 0..", s.shard_count - 1, " (ascending, each once)");
    s.shards.push_back(i);
  }
  EDGEQ_CHECK(hashes.is_array() && hashes.size() == static_cast<uint64_t>(images), what, ": ",
              images, " images counted but ", hashes.is_array() ? hashes.size() : 0,
              " image hashes recorded");
  for (const nlohmann::json& v : hashes) {
    const bool hex =
        v.is_string() && v.get<std::string>().size() == 64 &&
        v.get<std::string>().find_first_not_of("0123456789abcdef") == std::string::npos;
    EDGEQ_CHECK(hex && (s.images.empty() || v.get<std::string>() >= s.images.back()), what,
                ": image_sha256 holds something other than ascending SHA-256 digests");
    s.images.push_back(v.get<std::string>());
  }
  return s;
}

}  // namespace

void Stats::observe(const std::string& value, const Tensor& t) {
  EDGEQ_CHECK(t.dtype() == DType::kFloat32, "statistics of '", value, "': value is ",
              dtype_name(t.dtype()), ", only float32 values are observed");
  values[value].add(t.data<float>(), t.numel(), histogram_stride);
}

const Histogram& Stats::at(const std::string& value) const {
  auto it = values.find(value);
  if (it == values.end()) fail("no statistics for value '", value, "'");
  return it->second;
}

void merge_into(Stats& a, const Stats& b) {
  EDGEQ_CHECK(a.model_sha256 == b.model_sha256, "cannot merge stats of different models (sha256 ",
              short_hash(a.model_sha256), "... vs ", short_hash(b.model_sha256), "...)");
  EDGEQ_CHECK(a.preprocessing == b.preprocessing,
              "cannot merge stats with different preprocessing ('", a.preprocessing, "' vs '",
              b.preprocessing, "')");
  EDGEQ_CHECK(a.histogram_stride == b.histogram_stride,
              "cannot merge stats with different histogram sampling (stride ", a.histogram_stride,
              " vs ", b.histogram_stride, "); calibrate both the same way");
  for (const auto& kv : a.values)
    EDGEQ_CHECK(b.values.count(kv.first), "cannot merge stats: value '", kv.first,
                "' is only in the first");
  for (const auto& kv : b.values)
    EDGEQ_CHECK(a.values.count(kv.first), "cannot merge stats: value '", kv.first,
                "' is only in the second");
  EDGEQ_CHECK(a.sample.has_value() == b.sample.has_value(),
              "cannot merge stats that record their sample (seed, n, shard, images) with stats "
              "that do not (written by an edgeq before stats version 3)");
  std::optional<StatsSample> sample = a.sample;
  if (sample) merge_sample(*sample, *b.sample);
  a.images += b.images;
  for (const auto& kv : b.values) a.values[kv.first].merge(kv.second);
  a.sample = std::move(sample);
}

Stats merge_stats(const Stats& a, const Stats& b) {
  Stats out = a;
  merge_into(out, b);
  return out;
}

void save_stats(const Stats& s, const std::string& path) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& kv : s.values) values[kv.first] = kv.second.to_json();
  nlohmann::json j = {{"format", kFormat},
                      {"version", Stats::kVersion},
                      {"model_sha256", s.model_sha256},
                      {"preprocessing", s.preprocessing},
                      {"images", s.images},
                      {"histogram_stride", s.histogram_stride},
                      {"values", std::move(values)}};
  if (s.sample)
    j["sample"] = {{"seed", s.sample->seed},
                   {"n", s.sample->n},
                   {"shard_count", s.sample->shard_count},
                   {"shards", s.sample->shards},
                   {"image_sha256", s.sample->images}};
  std::string bytes;
  if (ends_with(path, ".json")) {
    bytes = json_text(j) + "\n";
  } else {
    std::vector<uint8_t> cbor = nlohmann::json::to_cbor(j);
    bytes.assign(cbor.begin(), cbor.end());
  }
  write_file_atomic(path, bytes);
}

Stats load_stats(const std::string& path) {
  return parse_stats(read_file_of_format(path, kMaxDataBytes, kHeadBytes,
                                         [&](const std::string& head) {
                                           if (form_of(head) == Form::kOther) not_stats(path);
                                         }),
                     path);
}

Stats parse_stats(const std::string& bytes, const std::string& path) {
  nlohmann::json j;
  const Form form = form_of(bytes);
  if (form == Form::kOther) not_stats(path);
  try {
    j = form == Form::kJson ? parse_json_text(bytes) : json_from_cbor(bytes);
  } catch (const nlohmann::json::exception&) {
    not_stats(path);
  }
  // A "format" of another type (a fuzz finding: CBOR binary) is no edgeq stats file either.
  const bool ours = j.is_object() && j.contains("format") && j.at("format").is_string() &&
                    j.at("format").get<std::string>() == kFormat;
  EDGEQ_CHECK(ours, "stats file ", path, " is not an edgeq stats file (format field missing)");
  Stats s;
  try {
    const std::string file = "stats file " + path;
    int version = json_number_at<int>(j, "version", file);
    EDGEQ_CHECK(version >= 1 && version <= Stats::kVersion, "stats file ", path, " has version ",
                version, "; this edgeq reads versions 1..", Stats::kVersion);
    s.model_sha256 = j.at("model_sha256").get<std::string>();
    s.preprocessing = j.at("preprocessing").get<std::string>();
    s.images = json_number_at<int64_t>(j, "images", file);
    s.histogram_stride =
        j.contains("histogram_stride") ? json_number_at<int>(j, "histogram_stride", file) : 1;
    EDGEQ_CHECK(s.histogram_stride >= 1, "stats file ", path, ": histogram_stride ",
                s.histogram_stride, " is not positive");
    const nlohmann::json& values = j.at("values");
    EDGEQ_CHECK(values.is_object(), "stats file ", path, ": 'values' is not an object");
    for (auto it = values.begin(); it != values.end(); ++it) {
      const std::string what = "stats file " + path + ", value '" + it.key() + "'";
      const Histogram& h = s.values[it.key()] = Histogram::from_json(it.value(), what);
      EDGEQ_CHECK(s.histogram_stride > 1 || !h.sampled(), what,
                  ": histogram is sampled but the file says every value is binned");
    }
    if (j.contains("sample")) s.sample = parse_sample(j.at("sample"), s.images, file);
  } catch (const nlohmann::json::exception& e) {
    fail("stats file ", path, " is malformed (", e.what(), ")");
  }
  return s;
}

}  // namespace edgeq
