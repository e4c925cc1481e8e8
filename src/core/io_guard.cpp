#include "core/io_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "core/error.h"

namespace edgeq {
namespace fs = std::filesystem;

namespace {

using FileId = std::pair<dev_t, ino_t>;

bool file_id(const std::string& path, FileId* id) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  *id = {st.st_dev, st.st_ino};
  return true;
}

std::string resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : p.lexically_normal().string();
}

bool same_file(const std::string& a, const std::string& b) {
  FileId ia, ib;
  if (file_id(a, &ia) && file_id(b, &ib)) return ia == ib;
  return resolved(a) == resolved(b);
}

std::string named(const RoleFile& f) {
  return f.role.empty() ? f.path : f.role + " " + f.path;
}

// The nearest folder of `f` that exists must be a folder this process may write (the folders
// below it are made when the output is written).
void check_writable_location(const RoleFile& f) {
  std::error_code ec;
  fs::path p = fs::absolute(f.path, ec).lexically_normal();
  if (fs::is_directory(p, ec)) return;  // an output folder (run --draw, infer --out)
  for (p = p.parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
  }
  if (p.empty()) return;
  if (!fs::is_directory(p, ec))
    fail(named(f), " cannot be written: ", p.string(), " is a file, not a folder");
  if (::access(p.c_str(), W_OK) != 0)
    fail(named(f), " cannot be written: folder ", p.string(), " is not writable");
}

struct InputRegistry {
  std::atomic<bool> on{false};
  std::mutex m;
  std::set<FileId> ids;
  std::set<FileId> state_folders;  // allow_updates_in()
};

InputRegistry& registry() {
  static InputRegistry r;
  return r;
}

// Runs `use` on the registry's ids and `path`'s id under the lock; nothing while unguarded or
// when `path` does not exist.
template <typename Use>
void with_input_ids(const std::string& path, Use use) {
  InputRegistry& r = registry();
  if (!r.on) return;
  FileId id;
  if (!file_id(path, &id)) return;
  std::lock_guard<std::mutex> lock(r.m);
  use(r.ids, id);
}

}  // namespace

uint64_t require_regular_file(const std::string& path, uint64_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) fail("file not found: ", path);
    fail("cannot read ", path, ": ", std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) fail("expected a file but got a directory: ", path);
  if (!S_ISREG(st.st_mode))
    fail("not a regular file: ", path, " (a device, FIFO or socket is not read)");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    fail(path, " is larger than ", max_bytes >> 20, " MiB (", size >> 20,
         " MiB): not a file of the expected kind");
  return size;
}

void check_distinct_files(const std::vector<RoleFile>& inputs,
                          const std::vector<RoleFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const RoleFile& out = outputs[i];
    if (out.path.empty()) continue;
    check_writable_location(out);
    for (const RoleFile& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        fail(named(out), " is the same file as ", named(in),
             ": refusing to overwrite an input (write the output elsewhere)");
    for (size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
        fail(named(out), " is the same file as ", named(outputs[j]),
             ": two outputs cannot share one file");
  }
}

void check_distinct_folders(const RoleFile& in, const RoleFile& out) {
  if (in.path.empty() || out.path.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(in.path, ec) || !fs::is_directory(out.path, ec)) return;
  if (same_file(in.path, out.path))
    fail(named(out), " is the folder of ", named(in),
         ": its files would replace the inputs (write them to another folder)");
}

void guard_inputs(bool on) {
  registry().on = on;
}

void note_input(const std::string& path) {
  with_input_ids(path, [](std::set<FileId>& ids, const FileId& id) { ids.insert(id); });
}

void allow_updates_in(const std::string& dir) {
  InputRegistry& r = registry();
  FileId id;
  if (!file_id(dir, &id)) return;
  std::lock_guard<std::mutex> lock(r.m);
  r.state_folders.insert(id);
}

void check_not_input(const std::string& path) {
  InputRegistry& r = registry();
  if (!r.on) return;
  FileId folder;
  std::error_code ec;
  const fs::path parent = fs::absolute(path, ec).parent_path();
  if (file_id(parent.string(), &folder)) {
    std::lock_guard<std::mutex> lock(r.m);
    if (r.state_folders.count(folder)) return;
  }
  bool read = false;
  with_input_ids(path, [&](std::set<FileId>& ids, const FileId& id) { read = ids.count(id) > 0; });
  if (read)
    fail("refusing to replace ", path,
         ": this command read it as an input (write the output elsewhere)");
}

}  // namespace edgeq
