// compare's building blocks on hand-made cases with answers worked out by hand: AP (Ultralytics
// compute_ap / ap_per_class / match_predictions), task mAP with IoU and OKS, detection diffs,
// tensor errors, percentiles, label locations.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "eval/ap.h"
#include "eval/detection_diff.h"
#include "eval/label_source.h"
#include "eval/summary.h"
#include "eval/task_metrics.h"
#include "eval/tensor_error.h"
#include "test_util.h"

namespace edgeq {
namespace {

TEST(EvalAp, PerfectCurveScoresUltralyticsPoint995) {
  // Recall reaches 1 at precision 1: the envelope is 1 on [0, 1) and the sentinel makes the
  // sample at recall 1.00 equal 0, so the last trapezoid (0.99..1.00) is half: 1 - 0.005.
  EXPECT_NEAR(compute_ap({0.5, 1.0}, {1.0, 1.0}), 0.995, 1e-12);
}

TEST(EvalAp, OneOfTwoLabelsMissed) {
  // One prediction, correct; two labels. Curve: recall 0.5, precision 1. Envelope 1 up to
  // recall 0.5, then linear to 0 at recall 1: area 0.5 + 0.25.
  EXPECT_NEAR(compute_ap({0.5}, {1.0}), 0.75, 1e-12);
}

TEST(EvalAp, FalsePositiveBetweenTwoHits) {
  // Predictions TP, FP, TP for two labels: recall .5 .5 1, precision 1 .5 2/3.
  // Envelope: 1 for recall < .5, 2/3 on [.5, 1), 0 at 1. Samples at 0.00..0.49 are 1 (50),
  // 0.50..0.99 are 2/3 (50), 1.00 is 0. Trapezoid: 0.01 * (50 + 50*2/3 - 1/2).
  const double want = 0.01 * (50 + 50 * 2.0 / 3.0 - 0.5);
  EXPECT_NEAR(compute_ap({0.5, 0.5, 1.0}, {1.0, 0.5, 2.0 / 3.0}), want, 1e-12);
}

TEST(EvalAp, ThresholdsAreFiftyToNinetyFive) {
  const auto& t = ap_thresholds();
  ASSERT_EQ(t.size(), 10u);
  EXPECT_DOUBLE_EQ(t.front(), 0.5);
  EXPECT_NEAR(t.back(), 0.95, 1e-12);
}

TEST(EvalAp, MatchPredictionsFollowsUltralytics) {
  // sim[label][pred]: P0 (more confident) prefers L1 (0.9), P1 prefers L1 too (0.95).
  // Each prediction keeps its best label, then L1 keeps the first prediction: P0. P1 and L0
  // stay unmatched at 0.5 (a greedy IoU matcher would have paired L1-P1 and L0-P0).
  std::vector<std::vector<double>> sim = {{0.6, 0.8}, {0.9, 0.95}};
  auto c = match_predictions(sim, 2, {0.5, 0.85, 0.92});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0][0], 1);
  EXPECT_EQ(c[1][0], 0);
  EXPECT_EQ(c[0][1], 1);  // 0.85: same picture
  EXPECT_EQ(c[1][1], 0);
  EXPECT_EQ(c[0][2], 0);  // 0.92: only L1-P1 qualifies
  EXPECT_EQ(c[1][2], 1);
  // No labels: every prediction is wrong.
  auto none = match_predictions({}, 3, {0.5});
  ASSERT_EQ(none.size(), 3u);
  EXPECT_EQ(none[2][0], 0);
}

TEST(EvalAp, ClassWithoutPredictionsCountsAsZero) {
  MapAccumulator acc;
  // Image 1: class 0 label found exactly; class 1 label never predicted.
  acc.add({0, 1}, {0}, {0.9f}, {std::vector<char>(10, 1)});
  MapResult r = acc.result();
  EXPECT_EQ(r.classes, 2);
  EXPECT_NEAR(r.map50, 0.995 / 2, 1e-12);
  EXPECT_NEAR(r.map50_95, 0.995 / 2, 1e-12);
}

TEST(EvalAp, PredictionsSortedByConfidenceAcrossImages) {
  MapAccumulator acc;
  // Two images, one label each. Image A: a false positive at 0.95 and a hit at 0.6.
  // Image B: a hit at 0.8. Dataset order by conf: FP(0.95), TP(0.8), TP(0.6):
  // recall 0, .5, 1; precision 0, .5, 2/3. Envelope 2/3 everywhere below 1: AP = 0.01*(100*2/3
  // - 1/3) at every threshold.
  const std::vector<char> hit(10, 1), miss(10, 0);
  acc.add({0}, {0, 0}, {0.95f, 0.6f}, {miss, hit});
  acc.add({0}, {0}, {0.8f}, {hit});
  const double want = 0.01 * (100 * 2.0 / 3.0 - 1.0 / 3.0);
  EXPECT_NEAR(acc.result().map50, want, 1e-12);
  EXPECT_NEAR(acc.result().map50_95, want, 1e-12);
}

std::vector<Keypoint> person_kpts(float dx) {
  std::vector<Keypoint> k;
  for (int i = 0; i < 17; ++i) k.push_back({100.f + 5 * i + dx, 200.f + 3 * i, 2.f});
  return k;
}

TEST(EvalTaskMetrics, BoxIouSetsTheThresholdsAndOksThePose) {
  TaskMetricsAccumulator acc(/*pose=*/true);
  Label l;
  l.cls = 0;
  l.box = {0, 0, 100, 100};
  l.kpts = person_kpts(0);
  Detection d;
  d.box[2] = 100;
  d.box[3] = 78;  // IoU 0.78: correct at 0.50 .. 0.75 (6 of 10 thresholds)
  d.score = 0.9f;
  d.kpts = person_kpts(0);  // exact keypoints: OKS ~1
  acc.add({l}, {d});
  TaskMetrics m = acc.result();
  EXPECT_NEAR(m.box.map50, 0.995, 1e-9);
  EXPECT_NEAR(m.box.map50_95, 0.995 * 6 / 10, 1e-9);
  ASSERT_TRUE(m.has_pose);
  EXPECT_NEAR(m.pose.map50_95, 0.995, 1e-9);

  // Keypoints all shifted by 6 px: OKS by hand = exp(-36 / (8 sigma^2 (area + 1e-7))) per point,
  // area = 100*100*0.53; the mean over 17 points decides how many thresholds pass.
  const float sig[17] = {0.026f, 0.025f, 0.025f, 0.035f, 0.035f, 0.079f, 0.079f, 0.072f, 0.072f,
                         0.062f, 0.062f, 0.107f, 0.107f, 0.087f, 0.087f, 0.089f, 0.089f};
  double sum = 0;
  for (float s : sig) sum += std::exp(-36.0 / (8.0 * s * s * (5300.0 + 1e-7)));
  const double want_oks = sum / 17;
  int passing = 0;
  for (double t : ap_thresholds()) passing += want_oks >= t;
  ASSERT_GT(passing, 0);
  ASSERT_LT(passing, 10);
  TaskMetricsAccumulator shifted(true);
  d.kpts = person_kpts(6);
  shifted.add({l}, {d});
  EXPECT_NEAR(shifted.result().pose.map50_95, 0.995 * passing / 10, 1e-9) << "OKS " << want_oks;
}

TEST(EvalTaskMetrics, WrongClassIsNotAHit) {
  TaskMetricsAccumulator acc(false);
  Label l;
  l.cls = 1;
  l.box = {0, 0, 50, 50};
  Detection d;
  d.cls = 0;
  d.box[2] = d.box[3] = 50;
  d.score = 0.9f;
  acc.add({l}, {d});
  EXPECT_EQ(acc.result().box.map50, 0.0);
}

TEST(EvalTaskMetrics, KeypointCountMismatchIsAnError) {
  TaskMetricsAccumulator acc(true);
  Label l;
  l.box = {0, 0, 50, 50};
  l.kpts = std::vector<Keypoint>(5);
  Detection d;
  d.box[2] = d.box[3] = 50;
  d.kpts = person_kpts(0);
  try {
    acc.add({l}, {d}, "labels/a.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("labels/a.txt: labels have 5 keypoints"),
              std::string::npos)
        << e.what();
  }
}

Detection det(float x1, float y1, float x2, float y2, float score, int cls = 0) {
  Detection d;
  d.box[0] = x1;
  d.box[1] = y1;
  d.box[2] = x2;
  d.box[3] = y2;
  d.score = score;
  d.cls = cls;
  return d;
}

TEST(EvalDetectionDiff, CountsAndPixelErrors) {
  // Reference: A (class 0) with keypoints, B (class 0), C (class 1).
  Detection a = det(0, 0, 100, 100, 0.9f);
  a.kpts = {{50, 50, 0.9f}, {60, 60, 0.3f}};  // second point not visible in the reference
  Detection b = det(200, 200, 260, 260, 0.8f);
  Detection c = det(400, 0, 500, 100, 0.7f, 1);
  // Test: A moved by (3, 4) (corner error 5), score 0.1 lower, keypoints moved by (6, 8) -> 10;
  // B missing; C found with class 0 instead (not a match): one extra, C missing.
  Detection ta = det(3, 4, 103, 104, 0.8f);
  ta.kpts = {{56, 58, 0.9f}, {160, 160, 0.9f}};
  Detection tc = det(400, 0, 500, 100, 0.7f, 0);
  DetectionDiffAccumulator acc;
  EXPECT_EQ(acc.add({a, b, c}, {ta, tc}), 1);
  DetectionDiff d = acc.result();
  EXPECT_EQ(d.ref_count, 3);
  EXPECT_EQ(d.test_count, 2);
  EXPECT_EQ(d.matched, 1);
  EXPECT_EQ(d.extra, 1);
  EXPECT_EQ(d.missing, 2);
  EXPECT_NEAR(d.match_rate.value(), 1.0 / 3.0, 1e-12);
  EXPECT_EQ(d.box_px.count, 2);
  EXPECT_NEAR(d.box_px.mean, 5.0, 1e-5);
  EXPECT_EQ(d.kpt_px.count, 1);
  EXPECT_NEAR(d.kpt_px.mean, 10.0, 1e-5);
  EXPECT_NEAR(d.score_abs.mean, 0.1, 1e-6);
  EXPECT_NEAR(d.score_bias, -0.1, 1e-6);
}

TEST(EvalDetectionDiff, ScoreBiasKeepsTheSignThatTheShiftDrops) {
  // One score 0.1 higher, one 0.3 lower: |shift| averages 0.2, the signed shift -0.1.
  DetectionDiffAccumulator acc;
  acc.add({det(0, 0, 100, 100, 0.5f), det(300, 300, 400, 400, 0.6f)},
          {det(0, 0, 100, 100, 0.6f), det(300, 300, 400, 400, 0.3f)});
  const DetectionDiff d = acc.result();
  EXPECT_NEAR(d.score_abs.mean, 0.2, 1e-6);
  EXPECT_NEAR(d.score_bias, -0.1, 1e-6);
  DetectionDiffAccumulator none;
  none.add({det(0, 0, 1, 1, 0.5f)}, {});
  EXPECT_EQ(none.result().score_bias, 0.0);  // no matched pair: no bias, not NaN
}

// Nothing on either side has nothing to match: no match rate (it used to read 100 %), and a notice
// that says why; a test detection alone makes it 0.
TEST(EvalDetectionDiff, NothingOnEitherSideHasNoMatchRate) {
  DetectionDiffAccumulator acc;
  acc.add({}, {});
  EXPECT_FALSE(acc.result().match_rate.has_value());
  EXPECT_NE(match_rate_notice(acc.result()).find("neither model detected anything"),
            std::string::npos);
  acc.add({}, {det(0, 0, 1, 1, 0.5f)});
  EXPECT_EQ(acc.result().match_rate, 0.0);
  EXPECT_EQ(acc.result().extra, 1);
}

TEST(EvalTensorError, RelativeL2CosineMaxAbs) {
  Tensor r(DType::kFloat32, {2}), t(DType::kFloat32, {2});
  r.data<float>()[0] = 1;
  r.data<float>()[1] = 0;
  t.data<float>()[0] = 1;
  t.data<float>()[1] = 1;
  TensorErrorAccumulator acc;
  acc.add(r, t);
  TensorError e = acc.result();
  EXPECT_NEAR(e.rel_l2, 1.0, 1e-12);
  EXPECT_NEAR(e.cosine, 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(e.max_abs, 1.0, 1e-12);
  // Adding an exact pair: sums over both, ||d||^2 = 1, ||r||^2 = 2 -> sqrt(1/2);
  // cosine = (1 + 1) / sqrt(||r||^2 * ||t||^2) = 2 / sqrt(2 * 3).
  acc.add(r, r);
  EXPECT_NEAR(acc.result().rel_l2, std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(acc.result().cosine, 2.0 / std::sqrt(6.0), 1e-12);
  Tensor other(DType::kFloat32, {3});
  EXPECT_THROW(acc.add(r, other, "output0"), Error);
}

TEST(EvalSummary, PercentileIsNumpyLinear) {
  EXPECT_NEAR(percentile({5, 1, 3, 2, 4}, 95), 4.8, 1e-12);
  EXPECT_NEAR(percentile({7}, 95), 7, 1e-12);
  EXPECT_EQ(percentile({}, 95), 0);
  Summary s = summarize({1, 2, 3, 10});
  EXPECT_EQ(s.count, 4);
  EXPECT_NEAR(s.mean, 4, 1e-12);
  EXPECT_NEAR(s.max, 10, 1e-12);
}

TEST(EvalLabelSource, ExplicitFolderMirrorsImagePaths) {
  const std::string dir = test::temp_dir("labels_src");
  ensure_dir(dir + "/imgs/sub");
  ensure_dir(dir + "/lbl");
  const std::vector<std::string> images = {dir + "/imgs/sub/a.jpg", dir + "/imgs/b.png"};
  // No label file for any image: scoring would call every image empty, so labels are off and
  // `unmatched` says why.
  LabelSource none = resolve_label_source(dir + "/imgs", images, dir + "/lbl");
  EXPECT_FALSE(none.enabled);
  EXPECT_TRUE(none.files.empty());
  EXPECT_NE(none.unmatched.find("matches any of the 2 images"), std::string::npos)
      << none.unmatched;
  // One label file is enough (a missing one means an image without objects).
  write_file_atomic(dir + "/lbl/b.txt", "");
  LabelSource s = resolve_label_source(dir + "/imgs", images, dir + "/lbl");
  ASSERT_TRUE(s.enabled);
  EXPECT_TRUE(s.unmatched.empty());
  EXPECT_EQ(s.files[0], dir + "/lbl/sub/a.txt");
  EXPECT_EQ(s.files[1], dir + "/lbl/b.txt");
  EXPECT_THROW(resolve_label_source(dir + "/imgs", {}, dir + "/nope"), Error);
}

TEST(EvalLabelSource, UltralyticsLayoutOnlyWhenLabelsFolderExists) {
  const std::string dir = test::temp_dir("labels_auto");
  ensure_dir(dir + "/ds/images/val");
  LabelSource none = resolve_label_source(dir + "/ds/images", {dir + "/ds/images/val/x.jpg"}, "");
  EXPECT_FALSE(none.enabled);
  ensure_dir(dir + "/ds/labels/val");
  LabelSource s = resolve_label_source(dir + "/ds/images", {dir + "/ds/images/val/x.jpg"}, "");
  ASSERT_TRUE(s.enabled);
  EXPECT_EQ(s.files[0], std::filesystem::path(dir + "/ds/labels/val/x.txt").lexically_normal());
}

}  // namespace
}  // namespace edgeq
