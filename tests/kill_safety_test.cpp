// Kill safety: `edgeq calibrate` and `edgeq quantize` SIGKILLed at random (seeded) moments of
// their run leave each output file either exactly as it was before (a sentinel the test wrote)
// or exactly the complete new output (for the timings JSON, which differs run to run: a complete
// JSON document), and leave no other file (no temp) in the output folder.
// Half of the kill moments are spread over the whole run, half over its last 15% (where the
// outputs are written).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "cli_util.h"
#include "core/file_io.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace edgeq {
namespace {

using Clock = std::chrono::steady_clock;

// Starts the edgeq program with `args` (its output discarded); returns its pid.
pid_t spawn(const std::vector<std::string>& args) {
  const std::string bin = test::edgeq_bin();
  std::vector<char*> argv{const_cast<char*>(bin.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);  // async-signal-safe calls only
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Exit code, or 128 + signal.
int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Runs `args` once to completion (writing `outputs` in `dir`), then again and again killed at
// random moments with every output holding a sentinel first; checks each output is the sentinel
// or the complete output, and no other file appears. `outputs` are file names in `dir`; those in
// `timed` hold timings, so a complete one is any JSON document.
void check_kills(const std::string& what, const std::string& dir,
                 const std::vector<std::string>& outputs, const std::set<std::string>& timed,
                 const std::vector<std::string>& args, uint32_t seed) {
  // The complete outputs, and how long a run takes (the faster of two: the first may be slowed by
  // a cold cache).
  double full_ms = 0;
  for (int run = 0; run < 2; ++run) {
    const Clock::time_point t0 = Clock::now();
    ASSERT_EQ(wait_for(spawn(args)), 0) << what << " failed when not killed";
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    full_ms = run == 0 ? ms : std::min(full_ms, ms);
  }
  std::map<std::string, std::string> complete;
  for (const std::string& o : outputs) complete[o] = read_file(dir + "/" + o);

  std::mt19937 rng(seed);
  const int kKills = 8;
  int killed_running = 0, replaced = 0;
  for (int k = 0; k < kKills; ++k) {
    std::map<std::string, std::string> sentinel;
    for (const std::string& o : outputs) {
      sentinel[o] = "previous " + o + " of kill " + std::to_string(k) + "\n";
      write_file_atomic(dir + "/" + o, sentinel[o]);
    }
    const std::set<std::string> before = files_in(dir);
    const double lo = k % 2 ? 0.85 : 0.0, hi = k % 2 ? 1.02 : 1.0;
    const double at_ms = std::uniform_real_distribution<double>(lo, hi)(rng) * full_ms;
    const pid_t pid = spawn(args);
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(at_ms * 1000)));
    ::kill(pid, SIGKILL);
    const int rc = wait_for(pid);
    killed_running += rc == 128 + SIGKILL;
    for (const std::string& o : outputs) {
      const std::string now = read_file(dir + "/" + o);
      const bool intact = now == sentinel[o];
      const bool whole =
          timed.count(o) ? !intact && nlohmann::json::accept(now) : now == complete[o];
      replaced += whole;
      EXPECT_TRUE(intact || whole)
          << what << " killed at " << at_ms << " of " << full_ms << " ms left " << o << " partial ("
          << now.size() << " bytes; complete: " << complete[o].size() << ")";
    }
    EXPECT_EQ(files_in(dir), before) << what << " killed at " << at_ms << " ms left a file behind";
  }
  std::printf(
      "%s: %d kills over a %.0f ms run, %d while running; outputs replaced %d times, "
      "otherwise intact\n",
      what.c_str(), kKills, full_ms, killed_running, replaced);
  // On a loaded machine some kills land after the end (run times vary); at least one must not.
  EXPECT_GE(killed_running, 1) << what << ": no kill hit a running process";
}

TEST(KillSafety, CalibrateLeavesThePreviousStatsOrTheCompleteOnes) {
  const test::CliModelFixture& fx = test::cli_model_fixture();
  const std::string dir = test::temp_dir("kill_calibrate");
  check_kills("calibrate", dir, {"a.stats", "a.json"}, {"a.json"},
              {"calibrate", "--model", fx.model, "--images", fx.images, "--n", "4", "--threads",
               "2", "--out", dir + "/a.stats", "--json", dir + "/a.json"},
              1301);
}

TEST(KillSafety, QuantizeLeavesThePreviousModelOrTheCompleteOne) {
  const test::CliModelFixture& fx = test::cli_model_fixture();
  const std::string dir = test::temp_dir("kill_quantize");
  const std::string stats = test::temp_dir("kill_quantize_stats") + "/s.stats";
  auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                         test::shell_quote(fx.images) + " --n 2 --out " + test::shell_quote(stats));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  check_kills("quantize", dir, {"q.onnx", "q.json"}, {},
              {"quantize", "--model", fx.model, "--stats", stats, "--scheme", "w8a8", "--out",
               dir + "/q.onnx", "--encodings", dir + "/q.json"},
              1302);
}

}  // namespace
}  // namespace edgeq
