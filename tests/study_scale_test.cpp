// Scaling the study out (issue 32): claims on steps, and the scheduler played locally: two worker
// processes on one cache, one of them killed with SIGKILL in the middle of a step and restarted
// (an evicted pod), then the collecting run: data.json equals a one-process study's, timing
// fields aside.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "core/error.h"
#include "core/file_io.h"
#include "ir/onnx_io.h"
#include "study/study_claims.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

TEST(StepClaims, OneHolderExpiredOrOwnClaimsAreTakenOver) {
  const std::string dir = test::temp_dir("claims");
  {
    StepClaims a(dir, "0/2", 30), b(dir, "1/2", 30);
    EXPECT_TRUE(a.try_claim("cut-1"));
    EXPECT_FALSE(b.try_claim("cut-1"));  // a live holder
    EXPECT_TRUE(b.try_claim("cut-2"));
    a.release("cut-1");
    EXPECT_FALSE(fs::exists(dir + "/cut-1.claim"));
    EXPECT_TRUE(b.try_claim("cut-1"));
  }
  // Left behind by processes that died: a lapsed lease is taken over; so is a claim of this
  // worker's own name (a restarted worker i), whatever its lease.
  write_file_atomic(dir + "/old.claim", "0/2\n1\n");
  write_file_atomic(dir + "/mine.claim", "1/2\n9999999999\n");
  write_file_atomic(dir + "/theirs.claim", "0/2\n9999999999\n");
  StepClaims c(dir, "1/2", 30);
  EXPECT_TRUE(c.try_claim("old"));
  EXPECT_TRUE(c.try_claim("mine"));
  EXPECT_FALSE(c.try_claim("theirs"));
  EXPECT_NE(read_file(dir + "/old.claim").find("1/2\n"), std::string::npos);
  // A claim being created (still empty) is fresh.
  write_file_atomic(dir + "/new.claim", "");
  EXPECT_FALSE(c.try_claim("new"));
  EXPECT_THROW(StepClaims(dir, "x", 0.5), Error);
  fs::remove_all(dir);
}

// The heartbeat renews a held claim: its expiry moves on while the step runs.
TEST(StepClaims, HeartbeatRenewsTheLease) {
  const std::string dir = test::temp_dir("claims_beat");
  StepClaims a(dir, "0/1", 1.5);
  ASSERT_TRUE(a.try_claim("s"));
  const std::string first = read_file(dir + "/s.claim");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_NE(read_file(dir + "/s.claim"), first);
  StepClaims other(dir, "1/1", 1.5);
  EXPECT_FALSE(other.try_claim("s"));  // renewed, so still live after its first lease
  fs::remove_all(dir);
}

pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  return test::spawn_cli(args, log, log + ".err");
}

TEST(StudyScaleOut, KilledAndRestartedWorkersThenCollectEqualOneProcess) {
  const std::string dir = test::temp_dir("study_scale");
  save_onnx(build_yolo11("yolo11n-pose", 64), dir + "/yolo11n-pose.onnx");
  save_onnx(build_yolo11("yolo11n", 64), dir + "/yolo11n.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 5);
  write_synthetic_scenes(dir + "/test", 2, 6);
  const std::vector<std::string> common = {"study",
                                           "--models",
                                           dir + "/yolo11n-pose.onnx," + dir + "/yolo11n.onnx",
                                           "--images",
                                           dir + "/calib",
                                           "--test",
                                           dir + "/test",
                                           "--arms",
                                           "A,C",
                                           "--schemes",
                                           "w8a16,w8a8",
                                           "--bench-runs",
                                           "1",
                                           "--bench-warmup",
                                           "0",
                                           "--thumbnails",
                                           "1",
                                           "--threads",
                                           "1"};
  auto with = [&](std::vector<std::string> extra, const std::string& out) {
    std::vector<std::string> a = common;
    a.insert(a.end(), {"--out", out});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(test::wait_cli(spawn(with({}, dir + "/one"), dir + "/one.log")), 0)
      << read_file(dir + "/one.log.err");

  // The plan: every step once, each step it reads listed before it.
  const std::string shared = dir + "/shared";
  ASSERT_EQ(test::wait_cli(spawn(with({"--plan", dir + "/plan.json"}, shared), dir + "/plan.log")),
            0)
      << read_file(dir + "/plan.log.err");
  const nlohmann::json plan = nlohmann::json::parse(read_file(dir + "/plan.json"));
  std::set<std::string> ids;
  for (const auto& s : plan["steps"]) {
    for (const auto& r : s["reads"]) EXPECT_TRUE(ids.count(r.get<std::string>())) << s["what"];
    EXPECT_TRUE(ids.insert(s["id"].get<std::string>()).second) << s["what"];
    EXPECT_EQ(s["cached"].get<bool>(), s["kind"] == "cut") << s["what"];  // the plan cuts
  }
  EXPECT_EQ(ids.size(), 2u * (1 + 2 * (2 + 2 * 4)));  // calibrate; per arm cut, bench, 2 schemes

  // Worker 1 is killed while it holds a claim (in the middle of a step), then restarted.
  const pid_t w0 = spawn(with({"--worker", "0/2", "--lease", "5"}, shared), dir + "/w0.log");
  pid_t w1 = spawn(with({"--worker", "1/2", "--lease", "5"}, shared), dir + "/w1.log");
  bool killed = false;
  for (int i = 0; i < 6000 && !killed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(shared + "/cache/claims", ec)) {
      std::string text;
      try {
        text = read_file(e.path().string());
      } catch (const Error&) {
        continue;
      }
      if (text.rfind("1/2\n", 0) == 0) {
        kill(w1, SIGKILL);
        killed = true;
        break;
      }
    }
  }
  ASSERT_TRUE(killed) << "worker 1/2 never held a claim";
  EXPECT_EQ(test::wait_cli(w1), -1);
  w1 = spawn(with({"--worker", "1/2", "--lease", "5"}, shared), dir + "/w1b.log");
  EXPECT_EQ(test::wait_cli(w1), 0) << read_file(dir + "/w1b.log.err");
  EXPECT_EQ(test::wait_cli(w0), 0) << read_file(dir + "/w0.log.err");
  EXPECT_NE(read_file(dir + "/w0.log").find("latency steps left to --collect"), std::string::npos);
  // Nothing is left claimed; only latency steps are left, and collect computes just those.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(shared + "/cache/claims", ec))
    ADD_FAILURE() << "left behind: " << e.path();
  ASSERT_EQ(test::wait_cli(spawn(with({"--collect"}, shared), dir + "/collect.log")), 0)
      << read_file(dir + "/collect.log.err");
  const std::string collected = read_file(dir + "/collect.log");
  const size_t benches = 2 * 2 * (1 + 2);
  EXPECT_NE(collected.find(std::to_string(ids.size()) + " steps (" +
                           std::to_string(ids.size() - benches) + " cached)"),
            std::string::npos)
      << collected;
  EXPECT_EQ(test::without_timing(nlohmann::json::parse(read_file(shared + "/data.json"))),
            test::without_timing(nlohmann::json::parse(read_file(dir + "/one/data.json"))));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace edgeq
