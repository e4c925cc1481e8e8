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

std::string read_file(const std::string& path, uint64_t max_bytes) {
  const uint64_t size = require_regular_file(path, max_bytes);
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open ", path);
  note_input(path);
  // A file that grew since stat() is read on, but never much past the limit.
  std::string bytes(static_cast<size_t>(size), '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(f.gcount()));
  if (f && f.peek() != std::char_traits<char>::eof()) {
    char buf[1 << 16];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
      bytes.append(buf, static_cast<size_t>(f.gcount()));
      if (bytes.size() > max_bytes) fail(path, " is larger than ", max_bytes >> 20, " MiB");
    }
  }
  return bytes;
}

std::string read_file_of_format(const std::string& path, uint64_t max_bytes, size_t head_bytes,
                                const std::function<void(const std::string& head)>& check_head) {
  require_regular_file(path, max_bytes);
  std::string head(head_bytes, '\0');
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail("cannot open ", path);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(f.gcount()));
  }
  check_head(head);
  return read_file(path, max_bytes);
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

// An unnamed file in `dir` (Linux O_TMPFILE), linkable later through /proc/self/fd; -1 where the
// file system or a missing /proc does not allow it.
int open_unnamed(const std::string& dir) {
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", F_OK) != 0) return -1;
  return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
  (void)dir;
  return -1;
#endif
}

}  // namespace

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

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const OutputTarget t = resolve_output(path_);
  target_ = t.path;
  if (t.stream) {  // never an input: only regular files are read
    stream_ = true;
    stream_fd_ = t.fd;
    return;
  }
  check_not_input(path_);
  tmp_ = target_ + ".tmp." + std::to_string(::getpid());
  const std::string dir = std::filesystem::path(target_).parent_path().string();
  ensure_dir(dir);
  fd_ = open_unnamed(dir);
  unnamed_ = fd_ >= 0;
  if (!unnamed_) fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot write ", tmp_, ": ", std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !unnamed_ && !tmp_.empty()) std::remove(tmp_.c_str());
}

void AtomicFile::write(const std::string& bytes) {
  EDGEQ_CHECK(!committed_ && !named_, "internal: write after commit to ", path_);
  if (stream_) return (void)pending_.append(bytes);
  if (!write_all(fd_, bytes)) fail_writing(path_, errno);
}

const std::string& AtomicFile::temp_path(const std::string& suffix) {
  EDGEQ_CHECK(!committed_ && !named_, "internal: temp_path after use of ", path_);
  namespace fs = std::filesystem;
  if (fd_ >= 0) ::close(fd_);  // the unnamed (or plain) temp is not used
  fd_ = -1;
  if (!unnamed_ && !tmp_.empty()) std::remove(tmp_.c_str());
  unnamed_ = false;
  named_ = true;
  const std::string pid = std::to_string(::getpid());
  // A stream's bytes wait in the system's temp folder; a file's next to it (rename(2) within one
  // file system).
  const fs::path dir = stream_ ? fs::temp_directory_path() : fs::path(target_).parent_path();
  const std::string stem = stream_ ? "edgeq" : fs::path(target_).stem().string();
  tmp_ = (dir / ("." + stem + ".tmp." + pid + suffix)).string();
  return tmp_;
}

void AtomicFile::write_through() {
  if (named_) {
    std::ifstream f(tmp_, std::ios::binary);
    if (!f) fail("cannot read the finished ", path_, " back from ", tmp_);
    std::ostringstream all;
    all << f.rdbuf();
    pending_ = all.str();
  }
  std::fflush(stdout);  // what the program printed comes first
  int fd = stream_fd_;
  if (fd < 0) fd = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail("cannot write ", path_, ": ", std::strerror(errno));
  const bool ok = write_all(fd, pending_);
  const int err = errno;
  if (stream_fd_ < 0 && ::close(fd) != 0 && ok) fail_writing(path_, errno);
  if (!ok) fail_writing(path_, err);
}

void AtomicFile::commit() {
  EDGEQ_CHECK(!committed_, "internal: ", path_, " committed twice");
  if (stream_) {
    write_through();
    if (named_) std::remove(tmp_.c_str());
    committed_ = true;
    return;
  }
  if (unnamed_) {
    std::remove(tmp_.c_str());  // a stale temp of a killed process that had the same pid
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp_.c_str(), AT_SYMLINK_FOLLOW) != 0)
      fail("cannot link the finished ", path_, " as ", tmp_, ": ", std::strerror(errno));
    unnamed_ = false;  // from here on the temp has a name to remove on failure
  }
  const int rc = fd_ >= 0 ? ::close(fd_) : 0;
  fd_ = -1;
  check_not_input(path_);
  if (rc != 0) fail_writing(path_, errno);
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    fail("cannot rename ", tmp_, " to ", target_, ": ", std::strerror(errno));
  committed_ = true;
}

}  // namespace edgeq
