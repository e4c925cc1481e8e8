#include "core/file_io.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/error.h"

namespace edgeq {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail("file not found: ", path);
  if (std::filesystem::is_directory(path, ec)) fail("expected a file but got a directory: ", path);
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open ", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  AtomicFile f(path);
  f.write(bytes);
  f.commit();
}

void ensure_dir(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) fail("cannot create directory ", path, ": ", ec.message());
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  std::filesystem::path p(path_);
  if (p.has_parent_path()) ensure_dir(p.parent_path().string());
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) fail("cannot write ", tmp_);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::remove(tmp_.c_str());
}

void AtomicFile::write(const std::string& bytes) {
  EDGEQ_CHECK(!committed_, "internal: write after commit to ", path_);
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out_) fail("failed writing ", path_, " (disk full?)");
}

void AtomicFile::commit() {
  EDGEQ_CHECK(!committed_, "internal: ", path_, " committed twice");
  out_.flush();
  if (!out_) fail("failed writing ", path_, " (disk full?)");
  out_.close();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot rename ", tmp_, " to ", path_);
  committed_ = true;
}

}  // namespace edgeq
