#include "core/io_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
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

std::string named(const RoleFile& f) {
  return f.role.empty() ? f.path : f.role + " " + f.path;
}

// `n` for "/proc/<this pid or self>/[task/<tid>/]fd/<n>" (what /dev/stdout, /dev/fd/N and
// /proc/self/fd/N resolve to), else -1.
int own_descriptor(const fs::path& p) {
  std::vector<std::string> parts;
  for (const fs::path& c : p) parts.push_back(c.string());
  if (parts.size() < 5 || parts[0] != "/" || parts[1] != "proc") return -1;
  if (parts[2] != "self" && parts[2] != "thread-self" && parts[2] != std::to_string(::getpid()))
    return -1;
  size_t i = 3;
  if (parts.size() == 7 && parts[3] == "task") i = 5;
  if (parts.size() != i + 2 || parts[i] != "fd") return -1;
  const std::string& n = parts[i + 1];
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(n);
}

bool under(const fs::path& p, const fs::path& folder) {
  auto a = p.begin(), b = folder.begin();
  for (; b != folder.end() && !b->empty(); ++a, ++b)
    if (a == p.end() || *a != *b) return false;
  return a != p.end();
}

// What writing `path` means (resolve_output), or why it cannot be written ("" when it can).
std::string output_target(const std::string& path, OutputTarget* t) {
  if (path == "-") {
    t->path = "-", t->stream = true, t->fd = STDOUT_FILENO;
    return "";
  }
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return "cannot be resolved: " + ec.message();
  for (int links = 0; links < 40; ++links) {
    const fs::path name = p.filename();
    if (name.empty() || name == "." || name == "..") return "is a folder, not a file";
    const fs::path dir = fs::weakly_canonical(p.parent_path(), ec);
    if (ec) return "cannot be resolved: " + ec.message();
    const fs::path full = dir / name;
    if (full.string().rfind("/proc/", 0) == 0) {
      t->fd = own_descriptor(full);
      if (t->fd < 0) return "is a /proc file, not an output (name a file, a device or '-')";
      t->path = full.string(), t->stream = true;
      return "";
    }
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0) {
      if (errno != ENOENT && errno != ENOTDIR)
        return std::string("cannot be written: ") + std::strerror(errno);
      t->path = full.string();  // a new file (the folders it needs are checked by the caller)
      return "";
    }
    if (S_ISLNK(st.st_mode)) {
      const fs::path target = fs::read_symlink(full, ec);
      if (ec) return "cannot be resolved: " + ec.message();
      p = target.is_absolute() ? target : dir / target;
      continue;
    }
    t->path = full.string();
    if (S_ISREG(st.st_mode)) return "";
    if (S_ISDIR(st.st_mode)) return "is a folder, not a file";
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      t->stream = true;
      return "";
    }
    return S_ISBLK(st.st_mode) ? "is a block device (never written)" : "is a socket, not a file";
  }
  return "cannot be resolved: too many levels of symbolic links";
}

// The nearest folder of `p` that exists must be a folder this process may write (the folders
// below it are made when the output is written).
void check_writable_location(const RoleFile& f, fs::path p) {
  std::error_code ec;
  for (; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
  }
  if (p.empty()) return;
  if (!fs::is_directory(p, ec))
    fail(named(f), " cannot be written: ", p.string(), " is a file, not a folder");
  if (::access(p.c_str(), W_OK) != 0)
    fail(named(f), " cannot be written: folder ", p.string(), " is not writable");
}

// One file of a check: how it resolves.
struct Resolved {
  const RoleFile* f = nullptr;
  fs::path canon;  // absolute, links resolved where they exist
  bool exists = false, folder = false, stream = false;
  FileId id{};
};

Resolved resolve_input(const RoleFile& f) {
  Resolved r;
  r.f = &f;
  std::error_code ec;
  r.canon = fs::weakly_canonical(fs::absolute(f.path, ec), ec);
  if (ec) r.canon = fs::absolute(f.path, ec).lexically_normal();
  if (!r.canon.has_filename()) r.canon = r.canon.parent_path();  // "dir/"
  struct stat st;
  r.exists = ::stat(f.path.c_str(), &st) == 0;
  if (r.exists) r.id = {st.st_dev, st.st_ino}, r.folder = S_ISDIR(st.st_mode);
  return r;
}

// Validates the output `f` (see check_distinct_files) and resolves it.
Resolved resolve_checked_output(const RoleFile& f) {
  Resolved r = resolve_input(f);
  if (f.path == "-") {
    if (f.kind != RoleFile::kText)
      fail(named(f), ": standard output ('-') takes text and JSON reports only (name a file)");
    r.stream = true;
    r.exists = false;  // compared with nothing
    return r;
  }
  if (f.kind == RoleFile::kFolder) {
    if (r.exists && !r.folder) fail(named(f), " is not a folder");
    check_writable_location(f, r.canon);
    return r;
  }
  OutputTarget t;
  const std::string problem = output_target(f.path, &t);
  if (!problem.empty()) fail(named(f), " ", problem);
  r.stream = t.stream;
  if (t.stream) {
    if (t.fd < 0 && ::access(t.path.c_str(), W_OK) != 0)
      fail(named(f), " cannot be written: ", std::strerror(errno));
  } else {
    check_writable_location(f, fs::path(t.path).parent_path());
  }
  return r;
}

bool same(const Resolved& a, const Resolved& b) {
  if (a.exists && b.exists) return a.id == b.id;
  return a.canon == b.canon;
}

// True when `file` lies below `folder` among the files `folder.f->files` names.
bool among_files(const Resolved& file, const Resolved& folder) {
  if (!under(file.canon, folder.canon)) return false;
  return !folder.f->files ||
         folder.f->files(file.canon.lexically_relative(folder.canon).generic_string());
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

FileFilter with_extension(std::string extension) {
  return [ext = std::move(extension)](const std::string& f) {
    if (f.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(f[f.size() - ext.size() + i])) !=
          std::tolower(static_cast<unsigned char>(ext[i])))
        return false;
    return true;
  };
}

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  const std::string problem = output_target(path, &t);
  if (!problem.empty()) fail(path, " ", problem);
  return t;
}

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
  std::vector<Resolved> ins, outs;
  for (const RoleFile& f : inputs)
    if (!f.path.empty()) ins.push_back(resolve_input(f));
  for (const RoleFile& f : outputs)
    if (!f.path.empty() && f.path != "-")
      outs.push_back(resolve_checked_output(f));
    else if (f.path == "-")
      resolve_checked_output(f);  // "-" only where text goes
  // Inputs and the outputs before the one at hand by identity (an existing file's inode, else its
  // resolved path), and the folders among them: thousands of files (a folder's drawings) stay
  // quick.
  std::map<FileId, const Resolved*> in_ids, out_ids;
  std::map<fs::path, const Resolved*> in_paths, out_paths;
  std::vector<const Resolved*> in_folders, out_folders;
  for (const Resolved& in : ins) {
    if (in.exists) in_ids.emplace(in.id, &in);
    in_paths.emplace(in.canon, &in);
    if (in.folder) in_folders.push_back(&in);
  }
  for (const Resolved& out : outs)
    if (out.f->kind == RoleFile::kFolder) out_folders.push_back(&out);
  auto find = [](const Resolved& r, const auto& ids, const auto& paths) -> const Resolved* {
    if (r.exists) {
      auto it = ids.find(r.id);
      return it == ids.end() ? nullptr : it->second;
    }
    auto it = paths.find(r.canon);
    return it == paths.end() ? nullptr : it->second;
  };
  for (const Resolved& out : outs) {
    const bool folder = out.f->kind == RoleFile::kFolder;
    // A folder read and written is no conflict by itself (the study's images in its own folder):
    // the files in it are (check_distinct_folders, for writers that name files after inputs).
    const Resolved* in = find(out, in_ids, in_paths);
    if (in && !(folder && in->folder))
      fail(named(*out.f), " is the same file as ", named(*in->f),
           ": refusing to overwrite an input (write the output elsewhere)");
    if (const Resolved* other = find(out, out_ids, out_paths);
        other && !(out.stream && other->stream))
      fail(named(*out.f), " is the same file as ", named(*other->f),
           ": two outputs cannot share one file");
    if (out.exists) out_ids.emplace(out.id, &out);
    out_paths.emplace(out.canon, &out);
    if (folder) {
      for (const Resolved& in : ins)
        if (in.exists && !in.folder && among_files(in, out))
          fail(named(*in.f), " lies in ", named(*out.f),
               " among the files the command writes there: refusing to overwrite an input");
      continue;
    }
    for (const Resolved* in : in_folders)
      if (out.exists && among_files(out, *in))
        fail(named(*out.f), " is one of the files of ", named(*in->f),
             ": refusing to overwrite an input (write the output elsewhere)");
    for (const Resolved* other : out_folders)
      if (among_files(out, *other))
        fail(named(*out.f), " lies in ", named(*other->f),
             " among the files the command writes there: two outputs cannot share one file");
  }
}

void check_distinct_folders(const RoleFile& in, const RoleFile& out) {
  if (in.path.empty() || out.path.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(in.path, ec) || !fs::is_directory(out.path, ec)) return;
  if (same(resolve_input(in), resolve_input(out)))
    fail(named(out), " is the folder of ", named(in),
         ": its files would replace the inputs (write them to another folder)");
}

void guard_inputs(bool on) {
  registry().on = on;
}

void note_input(const std::string& path) {
  with_input_ids(path, [](std::set<FileId>& ids, const FileId& id) { ids.insert(id); });
}

void note_inputs(const std::vector<std::string>& paths) {
  InputRegistry& r = registry();
  if (!r.on) return;
  std::vector<FileId> ids;
  FileId id;
  for (const std::string& p : paths)
    if (file_id(p, &id)) ids.push_back(id);
  std::lock_guard<std::mutex> lock(r.m);
  r.ids.insert(ids.begin(), ids.end());
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
