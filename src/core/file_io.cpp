#include "core/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

namespace {

// Writes all of `bytes` to `fd`; false on any error (ENOSPC, EIO).
bool write_all(int fd, const std::string& bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void fail_writing(const std::string& path, int err) {
  fail("failed writing ", path, ": ", std::strerror(err));
}

// Writes `bytes` to an unnamed file in `dir` (Linux O_TMPFILE) and links it as `tmp` once
// complete: a process killed while writing leaves nothing behind. False where the file system
// (or a missing /proc) does not allow it; throws when writing fails.
bool write_unnamed(const std::string& dir, const std::string& tmp, const std::string& bytes,
                   const std::string& path) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  if (!write_all(fd, bytes)) {
    const int err = errno;
    ::close(fd);
    fail_writing(path, err);
  }
  std::remove(tmp.c_str());  // a stale temp of a killed process that had the same pid
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const bool linked =
      ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0;
  if (::close(fd) != 0 && linked) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail_writing(path, err);
  }
  return linked;
#else
  return false;
#endif
}

void write_named(const std::string& tmp, const std::string& bytes, const std::string& path) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail("cannot write ", tmp, ": ", std::strerror(errno));
  const bool ok = write_all(fd, bytes);
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    std::remove(tmp.c_str());
    fail_writing(path, ok ? errno : err);
  }
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& bytes) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) ensure_dir(p.parent_path().string());
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (!write_unnamed(dir, tmp, bytes, path)) write_named(tmp, bytes, path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail("cannot rename ", tmp, " to ", path, ": ", std::strerror(err));
  }
}

void ensure_dir(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) fail("cannot create directory ", path, ": ", ec.message());
}

}  // namespace edgeq
