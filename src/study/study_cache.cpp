#include "study/study_cache.h"

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/sha256.h"

namespace edgeq {

std::string cache_key(const std::vector<std::string>& parts) {
  std::string all;
  for (const std::string& p : parts) all += std::to_string(p.size()) + ":" + p + ";";
  return sha256_hex(all);
}

std::string file_sha256(const std::string& path) {
  return sha256_hex(read_file(path));
}

std::string files_sha256(const std::vector<std::string>& paths) {
  std::vector<std::string> parts;
  for (const std::string& p : paths) {
    parts.push_back(std::filesystem::path(p).filename().string());
    parts.push_back(file_sha256(p));
  }
  return cache_key(parts);
}

namespace {

// SHA-256 of an entry without its "sha256" member, over the text json_text writes (keys sorted,
// numbers in their shortest round-trip form: the same text after a read back).
std::string entry_sha256(const nlohmann::json& entry) {
  return sha256_hex(json_text(entry));
}

}  // namespace

StudyCache::StudyCache(std::string dir) : dir_(std::move(dir)) {
  ensure_dir(dir_);
  allow_updates_in(dir_);  // entries are read back and replaced when found damaged
}

std::string StudyCache::path(const std::string& kind, const std::string& key,
                             const std::string& ext) const {
  return dir_ + "/" + kind + "-" + key.substr(0, 20) + ext;
}

std::optional<nlohmann::json> StudyCache::load(const std::string& kind, const std::string& key,
                                               const std::string& artifact_ext,
                                               std::string* rejected) const {
  std::error_code ec;
  const std::string p = path(kind, key, ".json");
  if (!std::filesystem::exists(p, ec)) return std::nullopt;  // not computed yet
  auto reject = [&](const std::string& why) -> std::optional<nlohmann::json> {
    if (rejected) *rejected = p + ": " + why;
    return std::nullopt;
  };
  nlohmann::json j;
  try {
    j = parse_json_text(read_file(p));
  } catch (const std::exception&) {
    return reject("not valid JSON (truncated?)");
  }
  if (!j.is_object() || !j.contains("key") || j.at("key") != key || !j.contains("result"))
    return reject("not an entry for this step");
  // The whole entry (its result's numbers as much as its artifact's record) as it was written.
  const auto recorded = j.find("sha256");
  if (recorded == j.end() || !recorded->is_string())
    return reject("no SHA-256 of the entry recorded (written by an older edgeq)");
  const std::string sha = recorded->get<std::string>();
  j.erase("sha256");
  if (entry_sha256(j) != sha) return reject("changed since it was written (SHA-256 differs)");
  if (!artifact_ext.empty()) {
    const std::string a = path(kind, key, artifact_ext);
    if (!std::filesystem::is_regular_file(a, ec)) return reject(a + " is missing");
    const nlohmann::json rec = j.value("artifact", nlohmann::json());
    if (!rec.is_object() || !rec.contains("size") || !rec.contains("sha256") ||
        !rec["size"].is_number_unsigned() || !rec["sha256"].is_string())
      return reject("no size and hash recorded for " + a);
    const auto size = std::filesystem::file_size(a, ec);
    if (ec || size != rec["size"].get<uintmax_t>())
      return reject(a + " has " + std::to_string(size) + " bytes, " +
                    std::to_string(rec["size"].get<uintmax_t>()) + " were written");
    if (file_sha256(a) != rec["sha256"].get<std::string>())
      return reject(a + " changed since it was written (SHA-256 differs)");
  }
  return j.at("result");
}

void StudyCache::save(const std::string& kind, const std::string& key, const nlohmann::json& j,
                      const std::string& artifact_ext) const {
  nlohmann::json entry{{"key", key}, {"kind", kind}, {"result", j}};
  if (!artifact_ext.empty()) {
    const std::string a = path(kind, key, artifact_ext);
    entry["artifact"] = {{"size", std::filesystem::file_size(a)}, {"sha256", file_sha256(a)}};
  }
  entry["sha256"] = entry_sha256(entry);
  write_file_atomic(path(kind, key, ".json"), json_text(entry) + "\n");
}

}  // namespace edgeq
