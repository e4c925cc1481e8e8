// Ctrl-C in the long library calls the command line makes (issue 27): the progress callback
// turns SIGINT into a cancel, the call stops at the next image, the program exits 130 and
// writes nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "core/file_io.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

// What a run of the program did after a SIGINT.
struct Interrupted {
  int exit_code = -1;  // -1 when a signal killed it
  std::string err;     // its stderr
  double seconds = 0;  // from the SIGINT to its exit
};

// Runs the program with `args` (stdout and stderr to files in `dir`), sends SIGINT once its
// stderr shows `when` (or after 60 s), and waits for it.
Interrupted interrupt_when(const std::vector<std::string>& args, const std::string& dir,
                           const std::string& when) {
  const std::string err = dir + "/err.txt";
  const pid_t child = test::spawn_cli(args, dir + "/out.txt", err);
  Interrupted r;
  if (child < 0) return r;
  for (int wait = 0; wait < 6000; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (fs::exists(err) && read_file(err).find(when) != std::string::npos) break;
  }
  const auto sent = std::chrono::steady_clock::now();
  kill(child, SIGINT);
  r.exit_code = test::wait_cli(child);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  r.err = read_file(err);
  return r;
}

TEST(CliInterrupt, SigintStopsWeightRepairAndWritesNothing) {
  const test::CliModelFixture& fx = test::cli_model_fixture();
  const std::string d = test::temp_dir("cli_interrupt");
  const std::string stats = d + "/s.cbor", out = d + "/q.onnx";
  const test::CliResult cal =
      test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                    test::shell_quote(fx.images) + " --n 2 --out " + test::shell_quote(stats));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  // Weight repair (GPTQ on the 8 photos, one thread) takes several seconds: interrupt once its
  // progress shows.
  const Interrupted r =
      interrupt_when({"quantize", "--model", fx.model, "--stats", stats, "--scheme", "w8a16",
                      "--images", fx.images, "--threads", "1", "--out", out},
                     d, "weight repair");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted (SIGINT); nothing written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(d))  // no temp file left behind
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

// The study stops before its next step; the steps it finished stay in the cache and the same
// command goes on from there (they are not computed again).
TEST(CliInterrupt, SigintStopsTheStudyAndKeepsFinishedSteps) {
  const std::string d = test::temp_dir("cli_interrupt_study");
  save_onnx(build_yolo11("yolo11n-pose", 320), d + "/m.onnx");
  write_synthetic_scenes(d + "/calib", 2, 21);
  write_synthetic_scenes(d + "/test", 2, 22);
  const std::string out = d + "/out";
  const std::vector<std::string> args = {
      "study",     "--models",     d + "/m.onnx", "--images",     d + "/calib", "--test",
      d + "/test", "--schemes",    "w8a16,w8a8",  "--bench-runs", "1",          "--bench-warmup",
      "0",         "--thumbnails", "0",           "--threads",    "1",          "--out",
      out};
  // Interrupt once the first quantize step is done.
  const Interrupted r = interrupt_when(args, d, "quantize");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_NE(r.err.find("the finished steps are kept in"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out + "/data.json"));
  // The same command again: it finishes, reusing what the interrupted run cached.
  std::string cmd;
  for (const std::string& a : args) cmd += test::shell_quote(a) + " ";
  const test::CliResult again = test::run_cli(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(fs::exists(out + "/data.json"));
  EXPECT_EQ(again.out.find("(0 cached)"), std::string::npos) << again.out;
}

// The probe stops at the next image: exit 130, no report written.
TEST(CliInterrupt, SigintStopsTheProbeAndWritesNothing) {
  const std::string d = test::temp_dir("cli_interrupt_probe");
  fs::create_directories(d + "/img");
  std::string csv = "image,label\n";
  for (int i = 0; i < 60; ++i) {
    const std::string name = "s" + std::to_string(i) + ".jpg";
    cv::imwrite(d + "/img/" + name, synthetic_scene(i, 3, 160, 120));
    csv += name + (i % 2 ? ",a\n" : ",b\n");
  }
  write_file_atomic(d + "/labels.csv", csv);
  CutSpec spec;
  spec.arm = Arm::kA;
  save_onnx(cut_model(build_yolo11("yolo11n", 320), spec), d + "/armA.onnx");
  const std::string json = d + "/p.json";
  // Interrupt once the features' progress shows.
  const Interrupted r =
      interrupt_when({"probe", "--model", d + "/armA.onnx", "--images", d + "/img", "--labels",
                      d + "/labels.csv", "--threads", "1", "--json", json},
                     d, "features of");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted (SIGINT); nothing written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json));
}

}  // namespace
}  // namespace edgeq
