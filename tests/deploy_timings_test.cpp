// Stage timings: latency percentiles against hand-computed values (linear interpolation between
// order statistics, numpy's default), and the per-frame steps filling them.
#include <gtest/gtest.h>

#include <thread>

#include "frames/frame_timings.h"

namespace edgeq {
namespace {

TEST(DeployTimings, PercentilesByHand) {
  // 1..10: P50 at rank 4.5 -> 5.5; P95 at rank 8.55 -> 9 + 0.55 = 9.55.
  LatencySummary s = summarize_latency({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.p50, 5.5);
  EXPECT_DOUBLE_EQ(s.p95, 9.55);
  EXPECT_DOUBLE_EQ(s.max, 10);
  // {1, 2, 3, 40}: P50 at rank 1.5 -> 2.5; P95 at rank 2.85 -> 3 + 0.85 * 37 = 34.45.
  s = summarize_latency({40, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.p50, 2.5);
  EXPECT_DOUBLE_EQ(s.p95, 34.45);
  EXPECT_DOUBLE_EQ(s.max, 40);
  s = summarize_latency({7});
  EXPECT_DOUBLE_EQ(s.p50, 7);
  EXPECT_DOUBLE_EQ(s.p95, 7);
  s = summarize_latency({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_DOUBLE_EQ(s.max, 0);
}

TEST(DeployTimings, StepsRecordStageAndEndToEndTimes) {
  FrameStages stages;
  stages.read = [](FrameWork&) { return true; };
  stages.infer = [](FrameWork&) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  stages.post = [](FrameWork&) {};
  FrameWork w;
  ASSERT_TRUE(read_step(stages, 7, w));
  infer_step(stages, w);
  post_step(stages, w);
  EXPECT_EQ(w.seq, 7u);
  EXPECT_GE(w.stage_ms[static_cast<int>(Stage::kInfer)], 19.0);
  EXPECT_GE(w.end_to_end_ms, w.stage_ms[0] + w.stage_ms[1] + w.stage_ms[2]);
  FrameTimings t;
  t.add(w);
  EXPECT_EQ(t.frames(), 1u);
  EXPECT_DOUBLE_EQ(t.stage(Stage::kInfer).p95, w.stage_ms[1]);
  EXPECT_DOUBLE_EQ(t.end_to_end().max, w.end_to_end_ms);
  EXPECT_STREQ(stage_name(Stage::kPost), "post");
}

}  // namespace
}  // namespace edgeq
