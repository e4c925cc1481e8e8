// The I/O guard (core/io_guard.h) against hand-made cases: devices, FIFOs and files over their
// limit are refused before any byte is read (no hang, no unbounded allocation); outputs that are
// an input or another output are found by inode (hard links, other spellings) and by resolved
// path (files that do not exist yet); while guarded, the atomic writers refuse to replace a file
// that was read, and leave it intact. Outputs that are not regular files (issue 46): a FIFO, a
// character device and standard output are written through, never replaced; through a symbolic
// link the target is replaced, never the link; a folder, a block device, a socket and /proc files
// are refused. Every test writes only to files and links it made itself: a regression replaces
// one of those, never a system path.
#include "core/io_guard.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "test_util.h"
#include "vision/image_io.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

using test::error_of;

TEST(IoGuard, RefusesDevicesFifosAndFilesOverTheLimit) {
  const std::string d = test::temp_dir("io_guard_reads");
  EXPECT_NE(error_of([] { read_file("/dev/zero"); }).find("not a regular file: /dev/zero"),
            std::string::npos);
  const std::string fifo = d + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO without a writer would block: refused before it is opened.
  EXPECT_NE(error_of([&] { read_file(fifo, kMaxTextBytes); }).find("not a regular file"),
            std::string::npos);
  write_file_atomic(d + "/big.json", std::string(3000, ' '));
  const std::string e = error_of([&] { read_file(d + "/big.json", 2048); });
  EXPECT_NE(e.find(d + "/big.json is larger than"), std::string::npos) << e;
  EXPECT_EQ(read_file(d + "/big.json", 3000).size(), 3000u);
  EXPECT_NE(error_of([&] { read_file(d); }).find("directory"), std::string::npos);
  EXPECT_NE(error_of([&] { read_file(d + "/absent"); }).find("file not found"), std::string::npos);
}

TEST(IoGuard, FindsOutputsThatAreInputsOrEachOther) {
  const std::string d = test::temp_dir("io_guard_same");
  write_file_atomic(d + "/m.onnx", "model");
  ASSERT_EQ(::link((d + "/m.onnx").c_str(), (d + "/hard.onnx").c_str()), 0);
  fs::create_directories(d + "/sub");
  // The same file under another name: a hard link, a path through "..", a symlink.
  fs::create_symlink(d + "/m.onnx", d + "/soft.onnx");
  for (const std::string& out : {d + "/hard.onnx", d + "/sub/../m.onnx", d + "/soft.onnx"}) {
    const std::string e = error_of([&] {
      check_distinct_files({{"--model", d + "/m.onnx"}}, {{"--out", out}});
    });
    EXPECT_NE(e.find("--out " + out + " is the same file as --model " + d + "/m.onnx"),
              std::string::npos)
        << e;
  }
  // Two outputs that do not exist yet, spelled differently.
  const std::string e2 = error_of([&] {
    check_distinct_files({{"--model", d + "/m.onnx"}},
                         {{"--out", d + "/q.onnx"}, {"--encodings", d + "/sub/../q.onnx"}});
  });
  EXPECT_NE(e2.find("two outputs cannot share one file"), std::string::npos) << e2;
  // Distinct files, and unset outputs, pass.
  EXPECT_EQ(error_of([&] {
              check_distinct_files({{"--model", d + "/m.onnx"}, {"--stats", ""}},
                                   {{"--out", d + "/q.onnx"}, {"--json", ""}});
            }),
            "");
  const std::string e3 = error_of([&] {
    check_distinct_folders({"--image", d}, {"--draw", d + "/sub/.."});
  });
  EXPECT_NE(e3.find("is the folder of --image"), std::string::npos) << e3;
  EXPECT_EQ(error_of([&] { check_distinct_folders({"--image", d}, {"--draw", d + "/sub"}); }), "");
}

TEST(IoGuard, WritersNeverReplaceAFileThatWasRead) {
  const std::string d = test::temp_dir("io_guard_write");
  write_file_atomic(d + "/in.txt", "input");
  guard_inputs(true);
  read_file(d + "/in.txt");
  const std::string e = error_of([&] { write_file_atomic(d + "/in.txt", "output"); });
  EXPECT_NE(e.find("refusing to replace " + d + "/in.txt"), std::string::npos) << e;
  write_file_atomic(d + "/other.txt", "output");  // not read: written
  guard_inputs(false);
  EXPECT_EQ(read_file(d + "/in.txt"), "input");
  EXPECT_EQ(read_file(d + "/other.txt"), "output");
  // Unguarded (library users, the default), a file read may be rewritten.
  write_file_atomic(d + "/in.txt", "rewritten");
  EXPECT_EQ(read_file(d + "/in.txt"), "rewritten");
}

mode_t lstat_type(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Everything the read end of a FIFO (opened without blocking before the writer) holds now.
std::string drain(int fd) {
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  return got;
}

TEST(IoGuard, ResolvesWhatAnOutputIs) {
  const std::string d = test::temp_dir("io_guard_resolve");
  OutputTarget t = resolve_output("-");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.fd, 1);
  // Only resolved here, never written: /dev/stdout is a link to this process's descriptor.
  t = resolve_output("/dev/stdout");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.fd, 1);
  t = resolve_output("/proc/self/fd/2");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.fd, 2);
  t = resolve_output("/dev/null");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.fd, -1);
  EXPECT_EQ(t.path, "/dev/null");
  // Links to a file, relative, chained and dangling: the final target, never the link.
  fs::create_directories(d + "/real");
  write_file_atomic(d + "/real/f.json", "old");
  fs::create_symlink("real/f.json", d + "/rel");
  fs::create_symlink(d + "/rel", d + "/chain");
  fs::create_symlink("real/new.json", d + "/dangling");
  for (const char* link : {"/rel", "/chain"}) {
    t = resolve_output(d + link);
    EXPECT_FALSE(t.stream);
    EXPECT_EQ(fs::path(t.path), fs::canonical(d + "/real/f.json")) << link;
  }
  t = resolve_output(d + "/dangling");
  EXPECT_EQ(fs::path(t.path), fs::canonical(d + "/real") / "new.json");
  fs::create_symlink("/dev/null", d + "/null");
  t = resolve_output(d + "/null");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.path, "/dev/null");
  // What is never written.
  EXPECT_NE(error_of([&] { resolve_output(d + "/real"); }).find("is a folder, not a file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { resolve_output("/proc/self/status"); }).find("/proc file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { resolve_output("/proc/1/fd/1"); }).find("/proc file"),
            std::string::npos);
  fs::create_symlink("loop_b", d + "/loop_a");
  fs::create_symlink("loop_a", d + "/loop_b");
  EXPECT_NE(error_of([&] { resolve_output(d + "/loop_a"); }).find("too many levels"),
            std::string::npos);
  const std::string sock = d + "/sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_NE(error_of([&] { resolve_output(sock); }).find("is a socket"), std::string::npos);
  ::close(s);
  // A block device node of our own (root only): refused, never written.
  if (::mknod((d + "/blk").c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0) {
    EXPECT_NE(error_of([&] { resolve_output(d + "/blk"); }).find("block device"),
              std::string::npos);
  }
}

TEST(IoGuard, StreamsAreWrittenThroughAndLinksKeepTheirTargets) {
  const std::string d = test::temp_dir("io_guard_streams");
  // A FIFO: its reader gets the bytes, and it stays a FIFO.
  const std::string fifo = d + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  write_file_atomic(fifo, "through the pipe\n");
  EXPECT_EQ(drain(rd), "through the pipe\n");
  EXPECT_EQ(lstat_type(fifo), S_IFIFO);
  // A link to the FIFO: the same, and the link stays a link.
  fs::create_symlink("pipe", d + "/to_pipe");
  write_file_atomic(d + "/to_pipe", "via a link\n");
  EXPECT_EQ(drain(rd), "via a link\n");
  EXPECT_EQ(lstat_type(d + "/to_pipe"), S_IFLNK);
  // Pieces reach a stream on commit only, in one go; an uncommitted file writes nothing.
  {
    AtomicFile f(fifo);
    f.write("one ");
    f.write("two\n");
    EXPECT_EQ(drain(rd), "");
    f.commit();
  }
  EXPECT_EQ(drain(rd), "one two\n");
  {
    AtomicFile f(fifo);
    f.write("never");
  }
  // A writer that takes a file name (a video writer) writes a temp the commit pours through.
  {
    AtomicFile f(d + "/to_pipe");
    const std::string tmp = f.temp_path(".avi");
    write_file_atomic(tmp, "named temp\n");
    f.commit();
    EXPECT_FALSE(fs::exists(tmp));
  }
  EXPECT_EQ(drain(rd), "named temp\n");
  EXPECT_EQ(lstat_type(fifo), S_IFIFO);
  ::close(rd);
  // A link to /dev/null (a character device): written through; the link and /dev/null stay.
  fs::create_symlink("/dev/null", d + "/null");
  write_file_atomic(d + "/null", "discarded");
  EXPECT_EQ(lstat_type(d + "/null"), S_IFLNK);
  EXPECT_EQ(fs::read_symlink(d + "/null"), "/dev/null");
  EXPECT_EQ(lstat_type("/dev/null"), S_IFCHR);
  // "-" is standard output (here a file standing in for it).
  const std::string out = d + "/stdout.txt";
  const int saved = ::dup(1), file = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(file, 0);
  std::fflush(stdout);
  ::dup2(file, 1);
  write_file_atomic("-", "{\"to\": \"stdout\"}\n");
  ::dup2(saved, 1);
  ::close(saved);
  ::close(file);
  EXPECT_EQ(read_file(out), "{\"to\": \"stdout\"}\n");
  // A link to a regular file in another folder: the target is replaced (its temp next to it), the
  // link stays a link to it, and no temp file is left in either folder.
  fs::create_directories(d + "/a");
  fs::create_directories(d + "/b");
  write_file_atomic(d + "/b/target.json", "old");
  fs::create_symlink("../b/target.json", d + "/a/link.json");
  write_file_atomic(d + "/a/link.json", "new");
  EXPECT_EQ(lstat_type(d + "/a/link.json"), S_IFLNK);
  EXPECT_EQ(read_file(d + "/b/target.json"), "new");
  for (const char* dir : {"/a", "/b"})
    EXPECT_EQ(std::distance(fs::directory_iterator(d + dir), fs::directory_iterator()), 1) << dir;
  // A dangling link: its target is created.
  fs::create_symlink("b/created.json", d + "/dangling");
  write_file_atomic(d + "/dangling", "made");
  EXPECT_EQ(lstat_type(d + "/dangling"), S_IFLNK);
  EXPECT_EQ(read_file(d + "/b/created.json"), "made");
}

TEST(IoGuard, ChecksOutputsAgainstFoldersStreamsAndStdout) {
  const std::string d = test::temp_dir("io_guard_folders");
  fs::create_directories(d + "/img");
  fs::create_directories(d + "/out");
  write_file_atomic(d + "/img/x.jpg", "photo");
  write_file_atomic(d + "/img/notes.txt", "notes");
  write_file_atomic(d + "/out/data.json", "results");
  const FileFilter image = [](const std::string& f) { return is_image_path(f); };
  const RoleFile images{"--images", d + "/img", RoleFile::kFile, image};
  const RoleFile study{"--out", d + "/out", RoleFile::kFolder,
                       [](const std::string& f) { return f == "data.json"; }};
  auto refusal = [](const std::vector<RoleFile>& in, const std::vector<RoleFile>& out) {
    return error_of([&] { check_distinct_files(in, out); });
  };
  // An existing image of an input folder: refused; a new file, or one the folder does not read,
  // passes.
  std::string e = refusal({images}, {{"--video", d + "/img/x.jpg"}});
  EXPECT_NE(e.find("--video " + d + "/img/x.jpg is one of the files of --images " + d + "/img"),
            std::string::npos)
      << e;
  EXPECT_EQ(refusal({images}, {{"--video", d + "/img/new.jpg"}, {"--json", d + "/img/notes.txt"}}),
            "");
  // A file among those an output folder gets: refused as an output and as an input; another
  // name in that folder passes.
  e = refusal({}, {study, {"--ledger", d + "/out/data.json"}});
  EXPECT_NE(e.find("--ledger " + d + "/out/data.json lies in --out " + d + "/out"),
            std::string::npos)
      << e;
  e = refusal({{"--config", d + "/out/data.json"}}, {study});
  EXPECT_NE(e.find("--config " + d + "/out/data.json lies in --out"), std::string::npos) << e;
  EXPECT_EQ(refusal({}, {study, {"--ledger", d + "/out/ledger.sqlite"}}), "");
  // A folder read and written passes when the files differ (photos beside a study's results).
  EXPECT_EQ(refusal({images}, {{"--out", d + "/img", RoleFile::kFolder,
                                [](const std::string& f) { return f == "data.json"; }}}),
            "");
  // The ledger is no other output.
  e = refusal({}, {{"--json", d + "/l.sqlite", RoleFile::kText}, {"--ledger", d + "/l.sqlite"}});
  EXPECT_NE(e.find("--ledger " + d + "/l.sqlite is the same file as --json"), std::string::npos)
      << e;
  // "-" only where a report is text; streams may be shared (only checked here, nothing written).
  e = refusal({}, {{"--out", "-"}});
  EXPECT_NE(e.find("--out -: standard output ('-') takes text and JSON reports only"),
            std::string::npos)
      << e;
  EXPECT_EQ(refusal({}, {{"--json", "-", RoleFile::kText},
                         {"--json2", "/dev/null", RoleFile::kText},
                         {"--report", "/dev/null", RoleFile::kText}}),
            "");
  // A folder where a file goes, a file where a folder goes.
  e = refusal({}, {{"--json", d + "/out"}});
  EXPECT_NE(e.find("--json " + d + "/out is a folder, not a file"), std::string::npos) << e;
  e = refusal({}, {{"--draw", d + "/img/x.jpg", RoleFile::kFolder}});
  EXPECT_NE(e.find("--draw " + d + "/img/x.jpg is not a folder"), std::string::npos) << e;
}

// A folder's listing counts as read: no output of the guarded program replaces a listed image,
// read yet or not.
TEST(IoGuard, ListedImagesAreInputsBeforeTheyAreRead) {
  const std::string d = test::temp_dir("io_guard_listed");
  fs::create_directories(d + "/img/sub");
  write_file_atomic(d + "/img/a.jpg", "a");
  write_file_atomic(d + "/img/sub/a.jpg", "b");
  guard_inputs(true);
  EXPECT_EQ(list_images(d + "/img").size(), 2u);
  const std::string e = error_of([&] { write_file_atomic(d + "/img/sub/a.jpg", "drawing"); });
  guard_inputs(false);
  EXPECT_NE(e.find("refusing to replace " + d + "/img/sub/a.jpg"), std::string::npos) << e;
  EXPECT_EQ(read_file(d + "/img/sub/a.jpg"), "b");
}

}  // namespace
}  // namespace edgeq
