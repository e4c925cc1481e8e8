// The threaded pipeline on stand-in stages (no model): frames leave in read order under a slow
// consumer, the queues bound how far the reader runs ahead, --drop-late drops the oldest waiting
// frames, a stop request finishes what was read, and a failing stage stops everything and
// surfaces its error.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "frames/auto_pipeline.h"
#include "frames/pipeline.h"
#include "frames/pipeline_choice.h"
#include "frames/serial_run.h"

namespace edgeq {
namespace {

using namespace std::chrono_literals;

// Stand-in stages over `total` frames: read names each frame by its number; infer and post sleep
// as asked; post records the order frames arrive in and the most frames read but not yet posted.
struct FakeStages {
  size_t total = 0;
  std::chrono::microseconds infer_time{0}, post_time{0};
  std::atomic<size_t> read{0}, posted{0}, most_in_flight{0};
  // Stages inside infer or post right now, and the most at once (2: the two overlapped).
  std::atomic<int> busy{0}, most_busy{0};
  std::mutex m;
  std::vector<size_t> order;

  void enter() {
    const int now = ++busy;
    int seen = most_busy;
    while (now > seen && !most_busy.compare_exchange_weak(seen, now)) {
    }
  }

  FrameStages stages() {
    FrameStages s;
    s.read = [this](FrameWork& w) {
      if (read == total) return false;
      w.frame.name = std::to_string(read.load());
      const size_t in_flight = ++read - posted;
      size_t seen = most_in_flight;
      while (in_flight > seen && !most_in_flight.compare_exchange_weak(seen, in_flight)) {
      }
      return true;
    };
    s.infer = [this](FrameWork&) {
      enter();
      std::this_thread::sleep_for(infer_time);
      --busy;
    };
    s.post = [this](FrameWork& w) {
      enter();
      std::this_thread::sleep_for(post_time);
      --busy;
      EXPECT_EQ(w.frame.name, std::to_string(w.seq));
      std::lock_guard<std::mutex> lock(m);
      order.push_back(w.seq);
      ++posted;
    };
    return s;
  }
};

TEST(DeployPipeline, FramesInOrderUnderASlowConsumer) {
  FakeStages f;
  f.total = 60;
  f.post_time = 2ms;  // post is the bottleneck
  const RunStats r = run_pipelined(f.stages(), {3, false}, nullptr);
  ASSERT_EQ(f.order.size(), 60u);
  for (size_t i = 0; i < f.order.size(); ++i) EXPECT_EQ(f.order[i], i);
  EXPECT_EQ(r.timings.frames(), 60u);
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_FALSE(r.interrupted);
  // Back-pressure: the reader runs ahead by at most both queues plus the frame in each stage.
  EXPECT_LE(f.most_in_flight.load(), 2 * 3 + 3u);
  EXPECT_LE(r.queue_high_water[0], 3u);
  EXPECT_LE(r.queue_high_water[1], 3u);
  EXPECT_EQ(r.queue_high_water[1], 3u);  // the slow post kept its queue full
  EXPECT_GT(r.frames_per_s(), 0);
}

// The pipeline runs infer of one frame while post handles another; the serial run never does.
// Judged by what ran at once, not by frames per second: a timed assertion failed on a loaded
// machine (107.9 against 112.0 serial frames/s where 1.4x was asked).
TEST(DeployPipeline, OverlapsStages) {
  FakeStages serial, piped;
  serial.total = piped.total = 40;
  serial.infer_time = piped.infer_time = 4ms;
  serial.post_time = piped.post_time = 4ms;
  run_serial(serial.stages(), nullptr);
  run_pipelined(piped.stages(), {4, false}, nullptr);
  EXPECT_EQ(serial.most_busy.load(), 1);
  EXPECT_EQ(piped.most_busy.load(), 2);
  EXPECT_EQ(piped.order, serial.order);
}

TEST(DeployPipeline, DropLateDropsTheOldestWaitingFrames) {
  FakeStages f;
  f.total = 200;
  f.infer_time = 1ms;  // the reader is far faster
  const RunStats r = run_pipelined(f.stages(), {2, true}, nullptr);
  EXPECT_GT(r.dropped, 0u);
  EXPECT_EQ(r.dropped + f.order.size(), 200u);
  EXPECT_LE(r.queue_high_water[0], 2u);
  for (size_t i = 1; i < f.order.size(); ++i) EXPECT_LT(f.order[i - 1], f.order[i]);
  EXPECT_EQ(f.order.back(), 199u);  // the newest frame is never the one dropped
}

TEST(DeployPipeline, StopFinishesTheFramesAlreadyRead) {
  FakeStages f;
  f.total = 100000;
  f.infer_time = 1ms;
  std::atomic<bool> stop{false};
  FrameStages s = f.stages();
  auto post = s.post;
  s.post = [&](FrameWork& w) {
    post(w);
    if (f.posted == 10) stop = true;
  };
  const RunStats r = run_pipelined(s, {4, false}, &stop);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(f.order.size(), f.read.load());  // everything read was finished
  EXPECT_GE(f.order.size(), 10u);
  EXPECT_LT(f.order.size(), 30u);
  for (size_t i = 0; i < f.order.size(); ++i) EXPECT_EQ(f.order[i], i);
}

TEST(DeployPipeline, AFailingStageStopsAllAndRethrows) {
  for (int failing = 0; failing < 3; ++failing) {
    FakeStages f;
    f.total = 100000;
    FrameStages s = f.stages();
    auto fail_at_5 = [](FrameWork& w) {
      if (w.seq == 5) fail("frame 5 is broken");
    };
    if (failing == 0) {
      auto read = s.read;
      s.read = [read, fail_at_5](FrameWork& w) {
        fail_at_5(w);  // read_step numbers the frame first
        return read(w);
      };
    } else if (failing == 1) {
      s.infer = fail_at_5;
    } else {
      auto post = s.post;
      s.post = [post, fail_at_5](FrameWork& w) {
        fail_at_5(w);
        post(w);
      };
    }
    try {
      run_pipelined(s, {2, false}, nullptr);
      ADD_FAILURE() << "no error from stage " << failing;
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "frame 5 is broken");
    }
    EXPECT_LE(f.order.size(), 5u) << "stage " << failing;
  }
}

// The choice by hand (frames/pipeline_choice.h's formulas), in milliseconds a frame.
TEST(PipelineChoice, HandComputedCases) {
  // yolo11n-pose at 640 on 2 cores, 2 inference threads: serial 1.3 + 21 + 0.1 = 22.4; on one
  // thread inference would take 42: serial.
  PipelineChoice c = choose_pipeline({1.3, 21, 0.1}, 2, 2);
  EXPECT_FALSE(c.threaded);
  EXPECT_EQ(c.infer_threads, 2);
  EXPECT_DOUBLE_EQ(c.serial_ms, 22.4);
  EXPECT_NE(c.reason.find("42.00 ms"), std::string::npos) << c.reason;
  // imgsz 160, 1 inference thread of 2 cores: max(3, 1, 0.1, 1.1 / 1) = 3 against 4.1.
  c = choose_pipeline({1, 3, 0.1}, 1, 2);
  EXPECT_TRUE(c.threaded);
  EXPECT_EQ(c.infer_threads, 1);
  EXPECT_DOUBLE_EQ(c.chosen_ms, 3);
  // 8 cores all inference's, read 4 + post 2 beside infer 20: on 7 threads 20 x 8 / 7 = 22.86
  // against 26: threads, one fewer.
  c = choose_pipeline({4, 20, 2}, 8, 8);
  EXPECT_TRUE(c.threaded);
  EXPECT_EQ(c.infer_threads, 7);
  EXPECT_NEAR(c.chosen_ms, 160.0 / 7, 1e-9);
  // More threads asked than cores: one fewer than the cores.
  EXPECT_EQ(choose_pipeline({4, 20, 2}, 16, 8).infer_threads, 7);
  // A spare core but read and post nearly free: 10 against 10.1 saves under 5 %.
  EXPECT_FALSE(choose_pipeline({0.05, 10, 0.05}, 1, 2).threaded);
  // Read slower than inference with a core spare: read bounds the pipeline, max(5, 2, 0, 5).
  c = choose_pipeline({5, 2, 0}, 1, 2);
  EXPECT_TRUE(c.threaded);
  EXPECT_DOUBLE_EQ(c.chosen_ms, 5);
  // One core: serial.
  EXPECT_FALSE(choose_pipeline({5, 5, 5}, 1, 1).threaded);
}

// The first frames run serially and decide; frames keep their numbers and order across the switch,
// and the inference threads are lowered only when the choice says so.
TEST(PipelineChoice, AutoRunMeasuresThenRunsTheChoice) {
  // Inference takes both cores: on one it would take 12 ms (6 x 2 / 1), more than serial's
  // 9 (read 3) or 6 (read 0): serial, the threads never lowered.
  for (bool slow_read : {true, false}) {
    SCOPED_TRACE(slow_read ? "read 3 ms" : "read 0 ms");
    FakeStages f;
    f.total = 20;
    f.infer_time = 6ms;
    FrameStages s = f.stages();
    if (slow_read) {
      s.read = [read = s.read](FrameWork& w) {
        std::this_thread::sleep_for(3ms);
        return read(w);
      };
    }
    AutoPipelineOptions o;
    o.infer_threads = 2, o.cores = 2;
    int set_to = 0;
    o.set_infer_threads = [&](int t) { set_to = t; };
    const AutoRun r = run_auto_pipeline(s, o, nullptr);
    EXPECT_FALSE(r.choice.threaded) << r.choice.reason;
    EXPECT_EQ(set_to, 0);
    EXPECT_EQ(r.stats.timings.frames(), 20u);
    ASSERT_EQ(f.order.size(), 20u);
    for (size_t i = 0; i < f.order.size(); ++i) EXPECT_EQ(f.order[i], i);
  }
  // One inference thread of 2 cores and a read as slow as inference: threads.
  FakeStages f;
  f.total = 20;
  f.infer_time = 6ms;
  FrameStages s = f.stages();
  auto read = s.read;
  s.read = [read](FrameWork& w) {
    std::this_thread::sleep_for(6ms);
    return read(w);
  };
  AutoPipelineOptions o;
  o.infer_threads = 1, o.cores = 2;
  const AutoRun r = run_auto_pipeline(s, o, nullptr);
  EXPECT_TRUE(r.choice.threaded) << r.choice.reason;
  ASSERT_EQ(f.order.size(), 20u);
  for (size_t i = 0; i < f.order.size(); ++i) EXPECT_EQ(f.order[i], i);
  EXPECT_GT(r.stats.queue_high_water[0] + r.stats.queue_high_water[1], 0u);
  // Inference on 4 cores, read 6 ms beside infer 6 ms: 3 threads (6 x 4 / 3 = 8 against 12).
  FakeStages g;
  g.total = 12;
  g.infer_time = 6ms;
  FrameStages gs = g.stages();
  gs.read = [read = gs.read](FrameWork& w) {
    std::this_thread::sleep_for(6ms);
    return read(w);
  };
  o.infer_threads = 4, o.cores = 4;
  int set_to = 0;
  o.set_infer_threads = [&](int t) { set_to = t; };
  const AutoRun r4 = run_auto_pipeline(gs, o, nullptr);
  EXPECT_TRUE(r4.choice.threaded) << r4.choice.reason;
  EXPECT_EQ(r4.choice.reason.rfind("threads: ", 0), 0u) << r4.choice.reason;
  EXPECT_EQ(set_to, 3);
  EXPECT_EQ(g.order.size(), 12u);
  // A source shorter than the measured frames: serial, every frame.
  FakeStages h;
  h.total = 2;
  const AutoRun r2 = run_auto_pipeline(h.stages(), o, nullptr);
  EXPECT_FALSE(r2.choice.threaded);
  EXPECT_EQ(r2.stats.timings.frames(), 2u);
}

}  // namespace
}  // namespace edgeq
