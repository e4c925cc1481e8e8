// Reading whole files and writing them atomically (temp file in the same folder, then rename).
#pragma once
#include <fstream>
#include <string>

namespace edgeq {

std::string read_file(const std::string& path);
// Writes `bytes` to `path` through `path.tmp.<pid>` and rename(2): readers never see a partial
// file and an existing file is left untouched when writing fails.
void write_file_atomic(const std::string& path, const std::string& bytes);
// Creates a directory (and parents) if missing.
void ensure_dir(const std::string& path);

// A file written piece by piece that appears at `path` only on commit(): the pieces go to
// `path.tmp.<pid>`, commit() renames it over `path`. Destroyed uncommitted, the temp file is
// removed and `path` is untouched (nothing half-written).
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const std::string& bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace edgeq
