// The study's cache (DIR/cache): every step's result under a key made of what it depends on
// (file contents by SHA-256, options), so a rerun with nothing changed redoes nothing and a
// changed input redoes only the steps that read it. Files are written atomically.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace edgeq {

// SHA-256 over the parts, each length-prefixed (so ("ab","c") and ("a","bc") differ).
std::string cache_key(const std::vector<std::string>& parts);
// SHA-256 of a file's bytes.
std::string file_sha256(const std::string& path);
// One digest for a set of files: their names (relative to nothing: base names, in the order
// given) and contents.
std::string files_sha256(const std::vector<std::string>& paths);

class StudyCache {
 public:
  explicit StudyCache(std::string dir);  // creates the folder
  // DIR/<kind>-<first 20 hex of key><ext>
  std::string path(const std::string& kind, const std::string& key, const std::string& ext) const;
  // The step's JSON when present (and, when `artifact_ext` is given, its artifact too, with the
  // size and SHA-256 recorded when it was saved). Each entry records the SHA-256 of its whole
  // self (result and artifact record): one that is there but damaged (truncated, edited, without
  // that hash, another key, an artifact changed or missing) is not used: `rejected` then says why.
  std::optional<nlohmann::json> load(const std::string& kind, const std::string& key,
                                     const std::string& artifact_ext = "",
                                     std::string* rejected = nullptr) const;
  // Records the step's JSON, and the size and SHA-256 of its artifact (DIR/<kind>-<key><ext>,
  // written by the step before) when `artifact_ext` is given, and the SHA-256 of the entry.
  void save(const std::string& kind, const std::string& key, const nlohmann::json& j,
            const std::string& artifact_ext = "") const;

 private:
  std::string dir_;
};

}  // namespace edgeq
