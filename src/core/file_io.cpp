#include "core/file_io.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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
  std::filesystem::path p(path);
  if (p.has_parent_path()) ensure_dir(p.parent_path().string());
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("cannot write ", tmp);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      fail("failed writing ", path, " (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    fail("cannot rename ", tmp, " to ", path);
  }
}

void ensure_dir(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) fail("cannot create directory ", path, ": ", ec.message());
}

}  // namespace edgeq
