// `run --pipeline`'s auto mode re-deciding while it runs: the policy over measured numbers
// (frames/mode_policy.h), then the whole run on stand-in stages whose cost in each mode is given
// by a clock the test advances (no sleeping, no throughput compared): it switches when a mode
// slows, frames stay in read order, every frame is posted once, a stop or an error during a
// change of mode still ends the run as it should.
#include "frames/auto_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "core/error.h"
#include "frames/mode_policy.h"

namespace edgeq {
namespace {

using Kind = ModeSwitch::Kind;

// Feeds `windows` windows, each at the time a frame `cost` gives for the mode running; returns
// the modes the windows ran in.
std::vector<RunMode> feed(ModePolicy& p, size_t windows,
                          const std::function<double(RunMode, size_t)>& cost) {
  std::vector<RunMode> ran;
  for (size_t i = 0; i < windows; ++i) {
    ran.push_back(p.running());
    p.window_done(cost(p.running(), i), 10 * (i + 1));
  }
  return ran;
}

TEST(ModePolicy, KeepsTheFasterModeAndBacksOffFromTheSlower) {
  // Threads always 20 % slower: tried after 2 windows, then after 4, 8, 16 (at most 16 here).
  ModePolicyOptions o;
  o.first_trial_after = 2, o.most_windows_between_trials = 16;
  ModePolicy p(100, std::nullopt, o);
  const auto ran =
      feed(p, 60, [](RunMode m, size_t) { return m == RunMode::kSerial ? 100.0 : 120.0; });
  std::vector<size_t> trials;
  for (size_t i = 0; i < ran.size(); ++i)
    if (ran[i] == RunMode::kThreads) trials.push_back(i);
  EXPECT_EQ(trials, (std::vector<size_t>{2, 7, 16, 33, 50}));
  for (const ModeSwitch& s : p.switches()) EXPECT_NE(s.kind, Kind::kKeep) << s.reason;
  ASSERT_GE(p.switches().size(), 2u);
  EXPECT_EQ(p.switches()[0].kind, Kind::kTry);
  EXPECT_EQ(p.switches()[0].to, RunMode::kThreads);
  EXPECT_FALSE(p.switches()[0].compared_ms.has_value());
  EXPECT_EQ(p.switches()[1].kind, Kind::kBack);
  EXPECT_EQ(p.switches()[1].to, RunMode::kSerial);
  EXPECT_DOUBLE_EQ(p.switches()[1].measured_ms, 120);
  EXPECT_DOUBLE_EQ(*p.switches()[1].compared_ms, 100);
  EXPECT_NE(p.switches()[1].reason.find("next trial in 4 windows"), std::string::npos)
      << p.switches()[1].reason;

  // Threads faster: kept after their first trial, serial tried again now and then and handed back.
  ModePolicy q(100, std::nullopt, o);
  const auto ran2 =
      feed(q, 20, [](RunMode m, size_t) { return m == RunMode::kSerial ? 100.0 : 80.0; });
  EXPECT_EQ(ran2[2], RunMode::kThreads);
  ASSERT_GE(q.switches().size(), 2u);
  EXPECT_EQ(q.switches()[1].kind, Kind::kKeep);
  EXPECT_EQ(q.switches()[1].from, RunMode::kSerial);
  EXPECT_EQ(q.switches()[1].to, RunMode::kThreads);
  size_t serial_after = 0;
  for (size_t i = 3; i < ran2.size(); ++i) serial_after += ran2[i] == RunMode::kSerial;
  EXPECT_GE(serial_after, 1u);  // serial measured again
  EXPECT_LE(serial_after, 4u);  // and not often
}

// A trial within the margin is not kept: no flapping between two modes that run alike.
TEST(ModePolicy, TrialWithinTheMarginIsNotKept) {
  ModePolicy p(100, std::nullopt);
  feed(p, 40, [](RunMode m, size_t) { return m == RunMode::kSerial ? 100.0 : 98.5; });
  for (const ModeSwitch& s : p.switches()) EXPECT_NE(s.kind, Kind::kKeep) << s.reason;
}

// The prediction chose threads: their first window is judged against serial's first frames, and
// a prediction proved wrong hands back to serial at once.
TEST(ModePolicy, APredictionProvedWrongHandsBack) {
  ModePolicy p(100, 60.0);
  EXPECT_EQ(p.running(), RunMode::kThreads);
  EXPECT_TRUE(p.window_done(130, 14));
  EXPECT_EQ(p.running(), RunMode::kSerial);
  ASSERT_EQ(p.switches().size(), 1u);
  EXPECT_EQ(p.switches()[0].kind, Kind::kBack);
  EXPECT_EQ(p.switches()[0].frame, 14u);
  EXPECT_NE(p.switches()[0].reason.find("predicted 60.00 ms"), std::string::npos)
      << p.switches()[0].reason;
  // Borne out by two windows: kept.
  ModePolicy q(100, 60.0);
  EXPECT_FALSE(q.window_done(70, 14));
  EXPECT_TRUE(q.switches().empty());  // one window decides nothing
  EXPECT_FALSE(q.window_done(72, 28));
  EXPECT_EQ(q.running(), RunMode::kThreads);
  ASSERT_EQ(q.switches().size(), 1u);
  EXPECT_EQ(q.switches()[0].kind, Kind::kKeep);
  EXPECT_EQ(q.switches()[0].frame, 28u);
  // One window faster, the next not: back to serial.
  ModePolicy r(100, 60.0);
  EXPECT_FALSE(r.window_done(70, 14));
  EXPECT_TRUE(r.window_done(99, 28));
  EXPECT_EQ(r.running(), RunMode::kSerial);
  ASSERT_EQ(r.switches().size(), 1u);
  EXPECT_EQ(r.switches()[0].kind, Kind::kBack);
}

// The kept mode slowing past the other's last measurement tries the other at once, however far
// the next trial was; one slow window alone does not (a mode's time is its recent windows' median).
TEST(ModePolicy, AKeptModeThatSlowsIsRetriedAtOnce) {
  ModePolicyOptions o;
  o.first_trial_after = 2, o.most_windows_between_trials = 64;
  ModePolicy p(100, std::nullopt, o);
  // Threads lose three trials (windows 2, 7 and 16; the next one 16 windows away), then serial
  // slows to 150 at window 20: its median passes threads' last 120 after window 21, threads run
  // windows 22 and 23 and are kept, serial is tried again 2 windows later (window 26).
  const auto ran = feed(p, 27, [](RunMode m, size_t i) {
    return m == RunMode::kThreads ? 120.0 : i < 20 ? 100.0 : 150.0;
  });
  for (size_t i = 17; i < 22; ++i) EXPECT_EQ(ran[i], RunMode::kSerial) << i;
  for (size_t i = 22; i < 26; ++i) EXPECT_EQ(ran[i], RunMode::kThreads) << i;
  EXPECT_EQ(ran[26], RunMode::kSerial);
  const std::vector<ModeSwitch>& s = p.switches();
  ASSERT_GE(s.size(), 4u);
  const ModeSwitch& tried = s[s.size() - 4];
  EXPECT_EQ(tried.kind, Kind::kTry);
  EXPECT_EQ(tried.frame, 220u);  // as window 21 ended
  EXPECT_NE(tried.reason.find("slower than threads' last 120.00 ms"), std::string::npos)
      << tried.reason;
  EXPECT_EQ(s[s.size() - 3].kind, Kind::kKeep);
  EXPECT_EQ(s[s.size() - 3].frame, 240u);  // as window 23 ended
  EXPECT_EQ(s[s.size() - 2].kind, Kind::kTry);
  EXPECT_EQ(s[s.size() - 2].to, RunMode::kSerial);
  EXPECT_EQ(s.back().kind, Kind::kBack);  // serial, still 150, loses its trial
}

// A host whose speed swings from window to window (each mode alike, one window in three 40%
// faster): no trial is kept on one lucky window.
TEST(ModePolicy, OneLuckyWindowKeepsNothing) {
  ModePolicy p(100, std::nullopt);
  feed(p, 200, [](RunMode m, size_t i) {
    const double noise = i % 3 == 2 ? 0.6 : 1.0;
    return (m == RunMode::kSerial ? 100.0 : 110.0) * noise;
  });
  for (const ModeSwitch& s : p.switches()) EXPECT_NE(s.kind, Kind::kKeep) << s.reason;
}

// Stand-in stages over `total` frames whose cost a frame is what `cost(seq, threaded)` says, in
// the milliseconds of a clock the test owns: each post advances it. Infer notes whether the frame
// ran in threads (inference on a thread of its own) or serially (on the calling thread).
struct ClockedStages {
  size_t total = 0;
  std::function<double(size_t seq, bool threaded)> cost;
  std::thread::id caller = std::this_thread::get_id();
  double now_ms = 0;  // the clock: read and advanced on the calling thread only
  size_t read = 0;
  std::vector<size_t> order;
  std::vector<char> threaded;  // by frame number
  std::function<void(size_t seq)> after_post;

  FrameStages stages() {
    threaded.assign(total, 0);
    FrameStages s;
    s.read = [this](FrameWork& w) {
      if (read == total) return false;
      w.frame.name = std::to_string(read++);
      return true;
    };
    s.infer = [this](FrameWork& w) { threaded[w.seq] = std::this_thread::get_id() != caller; };
    s.post = [this](FrameWork& w) {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      EXPECT_EQ(w.frame.name, std::to_string(w.seq));
      now_ms += cost(w.seq, threaded[w.seq] != 0);
      order.push_back(w.seq);
      if (after_post) after_post(w.seq);
    };
    return s;
  }

  AutoPipelineOptions options() {
    AutoPipelineOptions o;
    o.infer_threads = 1, o.cores = 1;  // one core: the prediction is serial, whatever is measured
    o.window_frames = 10, o.window_ms = 0;
    o.policy.first_trial_after = 1;
    o.clock_ms = [this] { return now_ms; };
    return o;
  }
};

void expect_read_order(const std::vector<size_t>& order, size_t n) {
  ASSERT_EQ(order.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(order[i], i);
}

// Threads faster at first, then (other work takes a core, say) slower after frame 80: the run
// takes to threads, then goes back to serial, and the report says so.
TEST(AutoPipeline, SwitchesWhenAModeSlows) {
  ClockedStages f;
  f.total = 250;
  f.cost = [](size_t seq, bool threaded) { return !threaded ? 10.0 : seq < 80 ? 5.0 : 20.0; };
  const AutoRun r = run_auto_pipeline(f.stages(), f.options(), nullptr);
  EXPECT_FALSE(r.choice.threaded) << r.choice.reason;
  expect_read_order(f.order, 250);
  EXPECT_EQ(r.stats.timings.frames(), 250u);
  EXPECT_EQ(r.serial_frames + r.threaded_frames, 250u);
  size_t threaded = 0;
  for (char t : f.threaded) threaded += t != 0;
  EXPECT_EQ(threaded, r.threaded_frames);
  // Threads kept before frame 80 (two windows faster), serial kept after it.
  const ModeSwitch* to_threads = nullptr;
  const ModeSwitch* to_serial = nullptr;
  for (const ModeSwitch& s : r.switches) {
    if (s.kind != Kind::kKeep) continue;
    if (s.to == RunMode::kThreads && !to_threads) to_threads = &s;
    if (s.to == RunMode::kSerial && to_threads) to_serial = &s;
  }
  ASSERT_NE(to_threads, nullptr);
  ASSERT_NE(to_serial, nullptr);
  EXPECT_LT(to_threads->frame, 80u);
  EXPECT_GT(to_serial->frame, 80u);
  EXPECT_DOUBLE_EQ(to_serial->measured_ms, 10);
  EXPECT_GT(*to_serial->compared_ms, 10 / (1 - 0.03));  // threads' windows after frame 80
  // After that, serial but for trials of threads, fewer and fewer.
  size_t serial_late = 0;
  for (size_t i = to_serial->frame; i < 250; ++i) serial_late += !f.threaded[i];
  EXPECT_GT(2 * serial_late, 250 - to_serial->frame);
  // Every change of mode is dated by a frame that ran in the new mode.
  for (const ModeSwitch& s : r.switches) {
    if (s.kind == Kind::kKeep) continue;
    EXPECT_EQ(f.threaded[s.frame] != 0, s.to == RunMode::kThreads) << s.reason;
  }
}

// Threads slower from the start: after their trials fail, the run stays serial, trying them less
// and less often.
TEST(AutoPipeline, StaysSerialWhereThreadsLose) {
  ClockedStages f;
  f.total = 400;
  f.cost = [](size_t, bool threaded) { return threaded ? 13.0 : 10.0; };
  const AutoRun r = run_auto_pipeline(f.stages(), f.options(), nullptr);
  expect_read_order(f.order, 400);
  for (const ModeSwitch& s : r.switches) EXPECT_NE(s.kind, Kind::kKeep) << s.reason;
  EXPECT_GT(r.threaded_frames, 0u);  // tried
  EXPECT_LT(r.threaded_frames, 100u);
  EXPECT_EQ(r.serial_frames + r.threaded_frames, 400u);
  // Each losing trial runs half a window (the frame that opens it and 5 more here) and the frames
  // in flight as it hands back: at most the two queues of 4, the one being inferred and the one
  // the reader holds while the first queue is full.
  size_t trials = 0;
  for (const ModeSwitch& s : r.switches) trials += s.kind == Kind::kTry;
  ASSERT_GT(trials, 0u);
  EXPECT_LE(r.threaded_frames, trials * (1 + 5 + 2 * 4 + 2)) << trials << " trials";
}

// A stop raised as the threads' trial ends (its half window opens as frame 15 finishes and closes
// as frame 20 does, handing back to serial; the frames read ahead drain in threads): the frames
// read are finished in order, and the run ends interrupted without starting serial again. (The
// stop comes with the post that closes the window: a later one would race the drain, which may
// have ended and run a frame serially already.)
TEST(AutoPipeline, StopDuringAChangeOfMode) {
  ClockedStages f;
  f.total = 100000;
  f.cost = [](size_t, bool threaded) { return threaded ? 20.0 : 10.0; };
  std::atomic<bool> stop{false};
  f.after_post = [&](size_t seq) {
    if (seq == 20) stop = true;
  };
  const AutoRun r = run_auto_pipeline(f.stages(), f.options(), &stop);
  EXPECT_TRUE(r.stats.interrupted);
  EXPECT_EQ(f.order.size(), f.read);  // everything read was finished
  expect_read_order(f.order, f.read);
  EXPECT_LT(f.read, 40u);
  EXPECT_EQ(r.stats.timings.frames(), f.read);
  for (size_t i = 0; i < f.read; ++i) EXPECT_EQ(f.threaded[i] != 0, i >= 15) << i;
  ASSERT_EQ(r.switches.size(), 1u);  // the trial began; the change back never ran
  EXPECT_EQ(r.switches[0].kind, Kind::kTry);
  EXPECT_EQ(r.switches[0].frame, 15u);
}

// A stage that fails after a change of mode stops the run with its error.
TEST(AutoPipeline, AFailingStageAfterAChangeOfModeRethrows) {
  for (bool in_threads : {true, false}) {
    ClockedStages f;
    f.total = 100000;
    f.cost = [](size_t, bool threaded) { return threaded ? 5.0 : 10.0; };
    FrameStages s = f.stages();
    // Threads kept from about frame 25 on; serial tried again about 10 windows later.
    s.infer = [&f, infer = s.infer, in_threads](FrameWork& w) {
      infer(w);
      if (w.seq > 30 && (f.threaded[w.seq] != 0) == in_threads) fail("frame ", w.seq, " broke");
    };
    try {
      run_auto_pipeline(s, f.options(), nullptr);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(" broke"), std::string::npos) << e.what();
    }
    for (size_t i = 0; i < f.order.size(); ++i) EXPECT_EQ(f.order[i], i);
  }
}

}  // namespace
}  // namespace edgeq
