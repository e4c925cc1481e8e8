// Reading whole files and writing them atomically (temp file in the same folder, then rename).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/io_guard.h"

namespace edgeq {

// The whole of a regular file of at most `max_bytes` (core/io_guard.h: devices, FIFOs and larger
// files are refused with one line naming the file).
std::string read_file(const std::string& path, uint64_t max_bytes = kMaxModelBytes);
// read_file for a format known by its first bytes: `check_head` sees the first `head_bytes` (fewer
// in a shorter file) and throws, naming the file, when they are not the format's; a file of another
// kind (a 4 GB sparse file, a photo) is refused before the rest of it is read.
std::string read_file_of_format(const std::string& path, uint64_t max_bytes, size_t head_bytes,
                                const std::function<void(const std::string& head)>& check_head);
// Writes `bytes` to `path` through `path.tmp.<pid>` and rename(2): readers never see a partial
// file and an existing file is left untouched when writing fails or the process is killed. On
// Linux the bytes are written to an unnamed file (O_TMPFILE) that is linked as the temp only when
// complete, so a killed writer leaves no temp file behind either (except in the instant between
// link and rename). Never replaces a file this command read (core/io_guard.h). What `path` is
// decides how it is written (core/io_guard.h, resolve_output): through a symbolic link its target
// is replaced, never the link; a character device, a FIFO or standard output ("-") is written
// through, never replaced.
void write_file_atomic(const std::string& path, const std::string& bytes);
// Creates a directory (and parents) if missing.
void ensure_dir(const std::string& path);

// A file written piece by piece that appears at `path` only on commit(), with the guarantees of
// write_file_atomic (which is one write and a commit): the pieces go to an unnamed file (or to
// `path.tmp.<pid>` where the file system has no O_TMPFILE), commit() links and renames it over
// `path`. Destroyed uncommitted, nothing is left behind and `path` is untouched. A stream (a
// device, a FIFO, "-") gets the pieces on commit(), in one go.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const std::string& bytes);
  // For a writer that only takes a file name (OpenCV's VideoWriter, which picks the container by
  // the extension): a temp file name ending in `suffix` to write instead of calling write();
  // commit() publishes what was written there.
  const std::string& temp_path(const std::string& suffix);
  void commit();
  const std::string& path() const { return path_; }

 private:
  void write_through();

  std::string path_, target_, tmp_;  // target_: the file replaced, or the stream written
  int fd_ = -1;
  bool unnamed_ = false;  // fd_ is an O_TMPFILE file, linked as tmp_ only on commit()
  bool named_ = false;    // temp_path() was asked for: tmp_ is written by name
  bool committed_ = false;
  bool stream_ = false;  // a device, a FIFO or standard output: written through on commit()
  int stream_fd_ = -1;   // the stream is this descriptor of the process
  std::string pending_;  // what a stream gets on commit()
};

}  // namespace edgeq
