// Ctrl-C in the long library calls the command line makes (issue 27): the progress callback
// turns SIGINT into a cancel, the call stops at the next image, the program exits 130 and
// writes nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli_util.h"
#include "core/file_io.h"
#include "test_util.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

TEST(CliInterrupt, SigintStopsWeightRepairAndWritesNothing) {
  const test::CliModelFixture& fx = test::cli_model_fixture();
  const std::string d = test::temp_dir("cli_interrupt");
  const std::string stats = d + "/s.cbor", out = d + "/q.onnx", err = d + "/err.txt";
  const test::CliResult cal =
      test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                    test::shell_quote(fx.images) + " --n 2 --out " + test::shell_quote(stats));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const std::string bin = test::edgeq_bin();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::freopen((d + "/out.txt").c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    execl(bin.c_str(), bin.c_str(), "quantize", "--model", fx.model.c_str(), "--stats",
          stats.c_str(), "--scheme", "w8a16", "--images", fx.images.c_str(), "--threads", "1",
          "--out", out.c_str(), nullptr);
    _exit(127);
  }
  // Weight repair (GPTQ on the 8 photos, one thread) takes several seconds: interrupt once its
  // progress shows.
  for (int wait = 0; wait < 6000; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (fs::exists(err) && read_file(err).find("weight repair") != std::string::npos) break;
  }
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(err);
  EXPECT_NE(read_file(err).find("interrupted; nothing written"), std::string::npos)
      << read_file(err);
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(d))  // no temp file left behind
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

}  // namespace
}  // namespace edgeq
