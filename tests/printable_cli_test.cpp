// Names from outside reach the terminal escaped (issue 46): photo names holding a newline, an OSC
// sequence that sets the window title, ESC / BEL and U+202E go through `run` (per-frame lines,
// progress, summary) and errors; a ledger tag with U+202E is refused. Nothing raw reaches stdout or
// stderr, and no name splits a line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>

#include "cli_util.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::run_cli;
using test::shell_quote;

// Bytes a terminal acts on: ESC, BEL, U+202E (E2 80 AE), CSI as C1 (C2 9B).
void expect_nothing_raw(const std::string& text, const std::string& what) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << what << ": raw ESC\n" << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << what << ": raw BEL";
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << what << ": raw U+202E";
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << what << ": raw CSI";
}

TEST(PrintableCli, NamesWithControlCharactersAreEscaped) {
  const std::string dir = test::temp_dir("printable_cli");
  const std::string photos = dir + "/photos";
  fs::create_directories(photos);
  const std::vector<std::string> names = {"a\nforged line.jpg", "b\x1b]0;pwned\x07.jpg",
                                          "c\xe2\x80\xaegpj.jpg",
                                          "d\xc2\x9b"
                                          "2J.jpg"};
  for (size_t i = 0; i < names.size(); ++i)
    cv::imwrite(photos + "/" + names[i], synthetic_scene(int(i), 5, 96, 64));
  const std::string model = dir + "/m\x1b[2J.onnx";
  save_onnx(build_yolo11("yolo11n-pose", 64), model);

  const auto r = run_cli("run --model " + shell_quote(model) + " --image " + shell_quote(photos) +
                         " --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_nothing_raw(r.out, "run stdout");
  expect_nothing_raw(r.err, "run stderr");
  EXPECT_EQ(r.out.find("forged line.jpg\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a\\nforged line.jpg"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\u202egpj.jpg"), std::string::npos) << r.out;
  // No line starts with the part of a name after its newline.
  EXPECT_EQ(r.out.find("\nforged"), std::string::npos) << r.out;

  // Errors: the model's name in a message.
  const auto missing = run_cli("inspect --model " + shell_quote(dir + "/gone\x1b]0;x\x07\n.onnx"));
  EXPECT_NE(missing.exit_code, 0);
  expect_nothing_raw(missing.err, "error");
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

  // inspect prints the model's name; a ledger tag with a bidi override is refused.
  const auto inspect = run_cli("inspect --model " + shell_quote(model));
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  expect_nothing_raw(inspect.out, "inspect");
  const auto tagged =
      run_cli("bench --model " + shell_quote(model) + " --runs 1 --warmup 0 --threads 1 --ledger " +
              shell_quote(dir + "/l.sqlite") + " --tag " +
              shell_quote("rc\xe2\x80\xae"
                          "1"));
  test::expect_refusal(tagged, "bidi", dir + "/l.sqlite");
  expect_nothing_raw(tagged.err, "tag refusal");
}

}  // namespace
}  // namespace edgeq
