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
// - what an output is: a regular file is replaced atomically (core/file_io.h), through a symbolic
//   link its target (never the link); a character device, a FIFO or standard output ("-", or
//   /dev/stdout and the other links to a descriptor of this process) is written through, never
//   replaced; a folder, a block device, a socket or another /proc file is refused.
#pragma once
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

}  // namespace edgeq
