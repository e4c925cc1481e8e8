#include "quant/stats.h"

#include <nlohmann/json.hpp>

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
  a.images += b.images;
  for (const auto& kv : b.values) a.values[kv.first].merge(kv.second);
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
  return parse_stats(read_file(path, kMaxDataBytes), path);
}

Stats parse_stats(const std::string& bytes, const std::string& path) {
  nlohmann::json j;
  try {
    size_t first = bytes.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && bytes[first] == '{')
      j = parse_json_text(bytes);
    else
      j = json_from_cbor(bytes);
  } catch (const nlohmann::json::exception&) {
    fail("stats file ", path, " is not an edgeq stats file (neither CBOR nor JSON)");
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
  } catch (const nlohmann::json::exception& e) {
    fail("stats file ", path, " is malformed (", e.what(), ")");
  }
  return s;
}

}  // namespace edgeq
