// Kill tests of SIGINT and SIGTERM (issue 46): each long command gets one of them at seeded random
// moments of its work and must handle it: exit 130 / 143 (itself, not ended by the signal) within
// seconds, keep what it finished (run's JSON, report and printed lines; the study's cache entries,
// with its claims released), and leave nothing half-written (no temp file; outputs it had not
// finished keep their previous bytes). Small models at imgsz 160 and short inputs keep each test
// to a few seconds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <random>
#include <sstream>
#include <thread>

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
using Clock = std::chrono::steady_clock;

struct Outcome {
  int sig = 0;           // the signal sent (0: none)
  double at_ms = 0;      // when, after the program's handlers were installed
  bool caught = false;   // the program had handlers for SIGINT and SIGTERM before the signal
  bool sent = false;     // the signal was sent (not when the program ended before its moment)
  double work_ms = 0;    // from then to its exit (a run without a signal)
  bool handled = false;  // exited itself (not ended by a signal)
  int status = -1;       // exit status, or 128 + the signal that ended it
  double exit_s = 0;     // from the signal to the exit
  std::string out, err;  // its stdout and stderr
};

// Whether process `pid` has handlers for both SIGINT and SIGTERM (Linux: SigCgt in
// /proc/PID/status): the program's InterruptScope is open, its work under way.
bool catches_both(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigCgt:", 0) == 0) {
      const uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
      return (mask >> (SIGINT - 1) & 1) && (mask >> (SIGTERM - 1) & 1);
    }
  return false;
}

// Runs the program with `args` (stdout, stderr to files in `dir`); with `sig`, sends it `at_ms`
// after the program installed its handlers and wrote `ready` on stderr (never, when it does not).
// A program still running 60 s after the signal is killed (and reported).
Outcome run_signalled(const std::vector<std::string>& args, const std::string& dir, int sig,
                      double at_ms, const std::string& ready_text = "") {
  Outcome o;
  o.sig = sig, o.at_ms = at_ms;
  const std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  const pid_t pid = test::spawn_cli(args, out, err);
  if (pid < 0) return o;
  int status = 0;
  bool done = false;
  Clock::time_point ready = Clock::now(), sent = ready;
  bool signalled = sig == 0;
  Clock::time_point last_look = ready;
  while (!done) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      done = true;
      break;
    }
    const Clock::time_point now = Clock::now();
    // Handlers, then (looked for every 10 ms) the text.
    if (!o.caught && catches_both(pid) &&
        (ready_text.empty() || (now - last_look > std::chrono::milliseconds(10) &&
                                read_file(err).find(ready_text) != std::string::npos))) {
      o.caught = true;
      ready = now;
    }
    if (now - last_look > std::chrono::milliseconds(10)) last_look = now;
    if (!signalled && o.caught &&
        now - ready >= std::chrono::microseconds(static_cast<int64_t>(at_ms * 1e3))) {
      ::kill(pid, sig);
      sent = now;
      signalled = o.sent = true;
    }
    if (sig && signalled && now - sent > std::chrono::seconds(60)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      done = true;
      ADD_FAILURE() << "still running 60 s after the signal";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const Clock::time_point end = Clock::now();
  o.work_ms = std::chrono::duration<double, std::milli>(end - ready).count();
  o.exit_s = std::chrono::duration<double>(end - sent).count();
  o.handled = WIFEXITED(status);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = read_file(out);
  o.err = read_file(err);
  fs::remove(out);
  fs::remove(err);
  return o;
}

// Files below `dir` whose names say they are temp files of an atomic write.
std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos)
      found.push_back(e.path().string());
  return found;
}

struct KillSpec {
  KillSpec(std::string w, std::string d, uint32_t sd)
      : what(std::move(w)), dir(std::move(d)), seed(sd) {}
  std::string what;
  std::vector<std::string> args;
  std::string dir;  // the command's folder: no temp file may stay in it
  uint32_t seed = 0;
  // Signals land at a uniform moment in [lo, hi] of a whole run's work (from the moment its
  // handlers are installed to its exit); or, when `window_ms` is given (work too long for a whole
  // run in a test), in [0, window_ms] after `ready` shows on stderr.
  double lo = 0.05, hi = 0.7;
  double window_ms = 0;
  std::string ready;
  int kills = 2;                              // alternately SIGINT and SIGTERM
  std::function<void()> before;               // before every run: sentinels, a clean cache
  std::function<void(const Outcome&)> check;  // after every signalled run
  // A command that writes `output` only when it finishes: none may appear when signalled.
  void writes_only_at_the_end(const std::string& output) {
    before = [output] { fs::remove(output); };
    check = [output](const Outcome&) { EXPECT_FALSE(fs::exists(output)) << output; };
  }
};

// A whole run first (it must succeed; its time sets the signal moments), then `kills` runs each
// signalled at a seeded random moment of its work: each must have caught both signals, exit 130
// (SIGINT) or 143 (SIGTERM) by itself, say so on stderr, within seconds, and pass `check`.
void check_signals(const KillSpec& s) {
  Outcome whole;
  if (s.window_ms == 0) {
    if (s.before) s.before();
    whole = run_signalled(s.args, s.dir, 0, 0);
    ASSERT_EQ(whole.status, 0) << s.what << " failed when not signalled: " << whole.err;
    EXPECT_TRUE(whole.caught) << s.what << " did not handle SIGINT and SIGTERM";
  }
  std::mt19937 rng(s.seed);
  for (int k = 0; k < s.kills; ++k) {
    if (s.before) s.before();
    const int sig = k % 2 ? SIGTERM : SIGINT;
    double at = s.window_ms > 0
                    ? std::uniform_real_distribution<double>(0, s.window_ms)(rng)
                    : std::uniform_real_distribution<double>(s.lo, s.hi)(rng) * whole.work_ms;
    Outcome o = run_signalled(s.args, s.dir, sig, at, s.ready);
    // A run that ended before its moment (the machine ran it faster than the whole run, as when
    // other work on a busy CI machine stops) is run again with the signal twice as early.
    for (int again = 0; again < 3 && sig && !o.sent && o.status == 0; ++again) {
      if (s.before) s.before();
      at /= 2;
      o = run_signalled(s.args, s.dir, sig, at, s.ready);
    }
    const char* name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    SCOPED_TRACE(s.what + " sent " + name + " at " + std::to_string(at) + " of " +
                 std::to_string(whole.work_ms) + " ms");
    EXPECT_TRUE(o.caught) << "no handlers for SIGINT and SIGTERM";
    EXPECT_TRUE(o.sent) << "the run ended before its signal was due";
    EXPECT_TRUE(o.handled) << "ended by the signal, not stopped by itself";
    EXPECT_EQ(o.status, 128 + sig) << o.err;
    EXPECT_NE(o.err.find(std::string("edgeq: interrupted (") + name + ")"), std::string::npos)
        << o.err;
    EXPECT_LT(o.exit_s, 10.0) << "took " << o.exit_s << " s to stop";
    EXPECT_TRUE(temp_files(s.dir).empty()) << temp_files(s.dir).front();
    std::printf("%s: %s at %.0f ms (of %.0f): exit %d after %.2f s\n", s.what.c_str(), name, at,
                s.window_ms > 0 ? s.window_ms : whole.work_ms, o.status, o.exit_s);
    if (s.check) s.check(o);
  }
}

// The files shared by the tests, made once: pose and detect models at imgsz 160, 40 scenes at
// 160x120 with YOLO labels beside them, and an MJPG video of 60 frames.
struct Fixture {
  std::string dir, pose, images, labels, video;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.dir = test::temp_dir("signal_kill");
    f.pose = f.dir + "/pose160.onnx";
    save_onnx(build_yolo11("yolo11n-pose", 160), f.pose);
    f.images = f.dir + "/set/images";
    f.labels = f.dir + "/set/labels";
    fs::create_directories(f.images);
    fs::create_directories(f.labels);
    for (int i = 0; i < 40; ++i) {
      const std::string stem = "s" + std::to_string(i);
      cv::imwrite(f.images + "/" + stem + ".jpg", synthetic_scene(i, 5, 160, 120));
      write_file_atomic(f.labels + "/" + stem + ".txt", "0 0.5 0.5 0.25 0.5\n");
    }
    f.video = f.dir + "/clip.avi";
    cv::VideoWriter w(f.video, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25, cv::Size(160, 120));
    for (int i = 0; i < 60; ++i) w.write(synthetic_scene(i % 8, 6, 160, 120));
    return f;
  }();
  return f;
}

size_t count_lines_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

// run on a video: the frames finished before the signal are all kept, in the detections JSON, the
// timing report and the printed lines (stdout is a file here, so they were buffered).
TEST(SignalKill, RunOnAVideoKeepsTheFinishedFrames) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_run");
  KillSpec s("run", d, 4601);
  s.args = {"run", "--model", fx.pose,         "--image",  fx.video,       "--threads",
            "1",   "--json",  d + "/det.json", "--report", d + "/rep.json"};
  s.before = [&] {
    fs::remove(d + "/det.json");
    fs::remove(d + "/rep.json");
  };
  s.check = [&](const Outcome& o) {
    ASSERT_TRUE(fs::exists(d + "/det.json") && fs::exists(d + "/rep.json"));
    const nlohmann::json det = nlohmann::json::parse(read_file(d + "/det.json"));
    const nlohmann::json rep = nlohmann::json::parse(read_file(d + "/rep.json"));
    EXPECT_TRUE(rep.at("interrupted").get<bool>());
    EXPECT_EQ(det.size(), rep.at("frames").get<size_t>());
    EXPECT_LT(det.size(), 60u);
    EXPECT_EQ(count_lines_with(o.out, " | read "), det.size()) << o.out;
  };
  check_signals(s);
}

// calibrate: nothing written, the previous statistics and JSON untouched.
TEST(SignalKill, CalibrateKeepsThePreviousOutputs) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_calibrate");
  KillSpec s("calibrate", d, 4602);
  s.args = {"calibrate", "--model", fx.pose, "--images",    fx.images, "--n",        "40",
            "--threads", "1",       "--out", d + "/s.cbor", "--json",  d + "/s.json"};
  s.before = [&] {
    write_file_atomic(d + "/s.cbor", "previous stats");
    write_file_atomic(d + "/s.json", "previous json");
  };
  s.check = [&](const Outcome&) {
    EXPECT_EQ(read_file(d + "/s.cbor"), "previous stats");
    EXPECT_EQ(read_file(d + "/s.json"), "previous json");
  };
  check_signals(s);
}

// quantize --auto (the mixed-precision search): no model written.
TEST(SignalKill, QuantizeAutoWritesNothing) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_quantize");
  const test::CliResult cal =
      test::run_cli("calibrate --model " + test::shell_quote(fx.pose) + " --images " +
                    test::shell_quote(fx.images) + " --n 8 --out " + test::shell_quote(d + "/s"));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  KillSpec s("quantize --auto", d, 4603);
  // The search evaluates its candidates for tens of seconds here: signalled in its first second.
  s.ready = "auto 10%: [";
  s.window_ms = 1000;
  s.args = {"quantize", "--model",   fx.pose, "--stats",  d + "/s",     "--scheme",
            "w8a8",     "--auto",    "10",    "--images", fx.images,    "--auto-n",
            "2",        "--threads", "1",     "--out",    d + "/q.onnx"};
  s.writes_only_at_the_end(d + "/q.onnx");
  check_signals(s);
}

// A study worker: its claims are released and the steps it finished stay in the cache, whole (a
// worker started again uses them and computes the rest).
TEST(SignalKill, StudyWorkerReleasesItsClaimsAndKeepsFinishedSteps) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_study");
  const std::string out = d + "/out";
  KillSpec s("study --worker", d, 4604);
  s.args = {"study",   "--models",  fx.pose, "--images",  fx.images, "--test",
            fx.images, "--schemes", "w8a16", "--arms",    "A",       "--calib-n",
            "4",       "--test-n",  "4",     "--threads", "1",       "--thumbnails",
            "0",       "--worker",  "0/1",   "--out",     out};
  s.before = [&] { fs::remove_all(out); };
  s.check = [&](const Outcome& o) {
    EXPECT_NE(o.err.find("claims are released"), std::string::npos) << o.err;
    const std::string claims = out + "/cache/claims";
    if (fs::exists(claims))
      for (const auto& e : fs::directory_iterator(claims)) ADD_FAILURE() << "left " << e.path();
  };
  check_signals(s);
  // The last signalled worker's cache: a worker started again finds no damaged entry.
  const test::CliResult again = test::run_cli([&] {
    std::string cmd;
    for (const std::string& a : s.args) cmd += test::shell_quote(a) + " ";
    return cmd;
  }());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("cache entry"), std::string::npos) << again.err;
}

// probe (features, then the cross-validated fits): no JSON written.
TEST(SignalKill, ProbeWritesNothing) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_probe");
  CutSpec spec;
  spec.arm = Arm::kA;
  save_onnx(cut_model(build_yolo11("yolo11n", 160), spec), d + "/armA.onnx");
  std::string csv = "image,label\n";
  for (int i = 0; i < 16; ++i) csv += "s" + std::to_string(i) + ".jpg," + "ab"[i % 2] + "\n";
  write_file_atomic(d + "/labels.csv", csv);
  KillSpec s("probe", d, 4605);
  s.args = {"probe",    "--model",         d + "/armA.onnx", "--images", fx.images,
            "--labels", d + "/labels.csv", "--folds",        "4",        "--threads",
            "1",        "--json",          d + "/p.json"};
  s.writes_only_at_the_end(d + "/p.json");
  check_signals(s);
}

// bench: no JSON written.
TEST(SignalKill, BenchWritesNothing) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_bench");
  KillSpec s("bench", d, 4606);
  s.args = {"bench", "--model",   fx.pose, "--runs", "40",         "--warmup",
            "1",     "--threads", "1",     "--json", d + "/b.json"};
  s.writes_only_at_the_end(d + "/b.json");
  check_signals(s);
}

// augment: whole variants only, every image with its labels, and the message says how many (a
// signal while the sources are read: nothing written, which a fast machine showed at 40 ms).
TEST(SignalKill, AugmentWritesWholeVariantsOnly) {
  const Fixture& fx = fixture();
  const std::string d = test::temp_dir("signal_augment");
  const std::string out = d + "/aug";
  KillSpec s("augment", d, 4607);
  s.args = {"augment", "--images", fx.images, "--labels", fx.labels, "--n", "150", "--out", out};
  s.before = [&] { fs::remove_all(out); };
  s.check = [&](const Outcome& o) {
    size_t images = 0;
    if (fs::exists(out + "/images"))
      for (const auto& e : fs::directory_iterator(out + "/images")) {
        ++images;
        EXPECT_TRUE(fs::exists(out + "/labels/" + e.path().stem().string() + ".txt"))
            << e.path() << " has no labels";
      }
    EXPECT_LT(images, 150u);
    // Signalled while the sources are read: nothing written, and the message says so.
    const std::string says =
        images ? std::to_string(images) + " of 150 variants" : "nothing written";
    EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
  };
  check_signals(s);
}

}  // namespace
}  // namespace edgeq
