// What a command may read and where it may write, checked in one place (issue 27):
// - reads: only regular files (and camera devices where a video is expected), each under a size
//   limit that fits its format, so /dev/zero, a FIFO or a /proc file is one clear error instead of
//   a hang or an exhausted memory;
// - writes: an output never replaces one of the command's inputs, and two outputs never share a
//   file. Front ends check their named files before any work (check_distinct_files); with
//   guard_inputs(true) every file read is remembered and the atomic writers refuse to replace one
//   of them, which catches the rest (a drawing named like the photo it was drawn from).
#pragma once
#include <cstdint>
#include <string>
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

// A file with a role for messages: how the front end names it (a flag, a key).
struct RoleFile {
  std::string role, path;
};

// Fails before any work when an output is the same file as an input or as another output (the
// same device and inode where both exist, else the same resolved path), or cannot be written
// where it is meant to go (its nearest existing folder is a file, or not writable), so a long run
// does not end in "cannot write". Empty paths are skipped.
void check_distinct_files(const std::vector<RoleFile>& inputs,
                          const std::vector<RoleFile>& outputs);
// Fails when the folder `out` is the folder `in` (drawings named after the inputs would replace
// them).
void check_distinct_folders(const RoleFile& in, const RoleFile& out);

// Turns the write-time guard on (the command-line program does) or off (the default: library
// users and tests keep plain behaviour).
void guard_inputs(bool on);
// Remembers `path` as read by this process (the readers call it; a no-op unless guarded).
void note_input(const std::string& path);
// Fails when `path` exists and is a file this process read (only while guarded), unless it lies
// directly in a folder given to allow_updates_in: files the command keeps up to date (the study's
// cache) and reads back, not outputs that could replace an input.
void check_not_input(const std::string& path);
void allow_updates_in(const std::string& dir);

}  // namespace edgeq
