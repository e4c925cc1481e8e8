// What a command may read and where it may write, checked in one place (issues 27 and 46):
// - reads: only regular files (and camera devices where a video is expected), each under a size
//   limit that fits its format, so /dev/zero, a FIFO or a /proc file is one clear error instead of
//   a hang or an exhausted memory;
// - writes: an output never replaces one of the command's inputs (a file it reads, one of the files
//   of a folder it reads, the ledger it adds to), and two outputs never share a file (a file inside
//   an output folder among the files the command writes there included). Front ends check every
//   file they name before any work (check_distinct_files); with guard_inputs(true) every file read
//   or listed to be read is remembered and the writers refuse to replace one of them, which
//   catches the rest;
// - what an output is: a regular file is replaced atomically (edgeq/files.h), through a symbolic
//   link its target (never the link); a character device, a FIFO or standard output ("-", or
//   /dev/stdout and the other links to a descriptor of this process) is written through, never
//   replaced; a folder, a block device, a socket or another /proc file is refused.
//
// Reading whole files and writing them atomically (temp file in the same folder, then rename).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace edgeq {

// Size limits of one read, per kind of file.
inline constexpr uint64_t kMaxModelBytes = 2ull << 30;    // protobuf's own limit on a message
inline constexpr uint64_t kMaxDataBytes = 4ull << 30;     // statistics, tensors (.npy)
inline constexpr uint64_t kMaxTextBytes = 256ull << 20;   // JSON, CSV, label and list files
inline constexpr uint64_t kMaxImageBytes = 512ull << 20;  // one photo
inline constexpr uint64_t kMaxVideoBytes = 1ull << 40;    // a video file (read as a stream)

// Fails with one line naming `path` unless it is a regular file (after symlinks) of at most
// `max_bytes`; returns its size.
uint64_t require_regular_file(const std::string& path, uint64_t max_bytes);

// Where the bytes of an output named `path` go.
struct OutputTarget {
  std::string path;     // the file replaced (a link's final target), or the stream opened
  bool stream = false;  // written through: a character device, a FIFO, standard output
  int fd = -1;          // a stream that is a descriptor of this process ("-" is 1), else -1
};
// Follows `path` (symbolic links, /proc/self/fd links) to what writing it means; fails with one
// line naming `path` for a folder, a block device, a socket, a /proc file that is not a
// descriptor of this process, or a loop of links.
OutputTarget resolve_output(const std::string& path);

// Which files below a folder a command reads or writes: `relative` is a path below the folder
// ('/'-separated, no "..").
using FileFilter = std::function<bool(const std::string& relative)>;

// The files whose names end in `extension` (".npy"), in any case.
FileFilter with_extension(std::string extension);

// A file with a role for messages: how the front end names it (a flag, a key).
struct RoleFile {
  enum Kind {
    kFile,    // an output file (or a device, a FIFO, a link to one: written through)
    kText,    // the same, and "-" for standard output (text and JSON reports)
    kFolder,  // an output folder: the command writes `files` below it (all when empty)
  };
  RoleFile(std::string role_, std::string path_, Kind kind_ = kFile, FileFilter files_ = {})
      : role(std::move(role_)), path(std::move(path_)), kind(kind_), files(std::move(files_)) {}

  std::string role, path;
  Kind kind;
  // Outputs of kind kFolder: the files the command writes below the folder. Inputs: when `path` is
  // a folder, the files the command reads below it (all when empty).
  FileFilter files;
};

// Fails before any work, in one line naming both files, when
// - an output is an input or another output (the same device and inode where both exist, else the
//   same resolved path; a stream two outputs write through is not a conflict, nor an output folder
//   that is an input folder: check_distinct_folders is for that),
// - an output file, or an input file, lies in an output folder among the files written there,
// - an existing output file lies in an input folder among the files read there,
// - an output cannot be written where it is meant to go: "-" where the output is not text, a
//   folder where a file is meant or a file where a folder is, a block device or a socket, a
//   nearest existing folder that is a file or not writable (so a long run does not end in
//   "cannot write"). Empty paths are skipped.
void check_distinct_files(const std::vector<RoleFile>& inputs,
                          const std::vector<RoleFile>& outputs);
// Fails when the folder `out` is the folder `in` (drawings named after the inputs would replace
// them).
void check_distinct_folders(const RoleFile& in, const RoleFile& out);

// Turns the write-time guard on (the command-line program does) or off (the default: library
// users and tests keep plain behaviour).
void guard_inputs(bool on);
// Remembers `path` as read by this process (the readers call it, and folder listings for every
// file they list; a no-op unless guarded).
void note_input(const std::string& path);
void note_inputs(const std::vector<std::string>& paths);
// Fails when `path` exists and is a file this process read (only while guarded), unless it lies
// directly in a folder given to allow_updates_in: files the command keeps up to date (the study's
// cache) and reads back, not outputs that could replace an input.
void check_not_input(const std::string& path);
void allow_updates_in(const std::string& dir);

// The whole of a regular file of at most `max_bytes` (above: devices, FIFOs and larger
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
// link and rename). Never replaces a file this command read (above). What `path` is
// decides how it is written (above, resolve_output): through a symbolic link its target
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

// Paths that come as text from outside C strings (Python str / bytes, JSON strings) may hold a
// NUL byte, where every file call would cut them ("z.onnx\0.evil" opens z.onnx): such a path is
// refused, never shortened. Throws edgeq::Error naming `what` (the option or argument).
void check_path_name(const std::string& path, const std::string& what);

// Image inputs (implemented with the image readers).
// "PATH|DIR" -> image paths: a file gives itself, a folder gives list_images (at least one).
// Throws naming the path when it does not exist or a folder holds no images.
std::vector<std::string> expand_image_paths(const std::string& spec);

// An image file or folder a command reads, for check_distinct_files (edgeq/files.h): of a
// folder, the image files below it are read.
RoleFile image_input(const std::string& role, const std::string& spec);

}  // namespace edgeq
