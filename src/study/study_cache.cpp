#include "study/study_cache.h"

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
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

StudyCache::StudyCache(std::string dir) : dir_(std::move(dir)) {
  ensure_dir(dir_);
}

std::string StudyCache::path(const std::string& kind, const std::string& key,
                             const std::string& ext) const {
  return dir_ + "/" + kind + "-" + key.substr(0, 20) + ext;
}

std::optional<nlohmann::json> StudyCache::load(const std::string& kind, const std::string& key,
                                               const std::string& artifact_ext) const {
  std::error_code ec;
  const std::string p = path(kind, key, ".json");
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  if (!artifact_ext.empty() && !std::filesystem::is_regular_file(path(kind, key, artifact_ext), ec))
    return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(read_file(p));
    if (j.value("key", "") != key) return std::nullopt;
    return j.at("result");
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged entry is recomputed
  }
}

void StudyCache::save(const std::string& kind, const std::string& key,
                      const nlohmann::json& j) const {
  write_file_atomic(path(kind, key, ".json"),
                    nlohmann::json{{"key", key}, {"kind", kind}, {"result", j}}.dump() + "\n");
}

}  // namespace edgeq
