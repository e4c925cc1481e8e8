// The I/O guard (core/io_guard.h) against hand-made cases: devices, FIFOs and files over their
// limit are refused before any byte is read (no hang, no unbounded allocation); outputs that are
// an input or another output are found by inode (hard links, other spellings) and by resolved
// path (files that do not exist yet); while guarded, the atomic writers refuse to replace a file
// that was read, and leave it intact.
#include "core/io_guard.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "test_util.h"

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

}  // namespace
}  // namespace edgeq
