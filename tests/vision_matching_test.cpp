// One-to-one IoU matching and OKS on hand-made cases.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "vision/matching.h"

namespace edgeq {
namespace {

TEST(VisionMatching, GreedyByDescendingIou) {
  // A0 overlaps B1 exactly (IoU 1) and B0 (IoU 90/110); A1 overlaps B2 (IoU 90/110).
  std::vector<BoxXYXY> a = {{0, 0, 10, 10}, {20, 0, 30, 10}};
  std::vector<BoxXYXY> b = {{1, 0, 11, 10}, {0, 0, 10, 10}, {21, 0, 31, 10}};
  auto m = match_boxes(a, b);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].a, 0);
  EXPECT_EQ(m[0].b, 1);
  EXPECT_FLOAT_EQ(m[0].iou, 1.0f);
  EXPECT_EQ(m[1].a, 1);
  EXPECT_EQ(m[1].b, 2);
  EXPECT_NEAR(m[1].iou, 90.0 / 110.0, 1e-6);
}

TEST(VisionMatching, GreedyIsNotFirstComeFirstServed) {
  // B0 overlaps A0 at 0.69 and A1 at 0.96; A0 also overlaps B1 at 0.54. Greedy by IoU gives
  // A1-B0 first, then A0-B1; matching in label order would have taken A0-B0 and left A1 alone.
  std::vector<BoxXYXY> a = {{0, 0, 10, 10}, {2, 0, 12, 10}};
  std::vector<BoxXYXY> b = {{1.8f, 0, 11.8f, 10}, {-3, 0, 7, 10}};
  // Check the IoUs the comment claims, computed by hand: overlap widths 8.2, 9.8, 7.
  EXPECT_NEAR(box_iou(a[0], b[0]), 82.0 / 118.0, 1e-5);
  EXPECT_NEAR(box_iou(a[1], b[0]), 98.0 / 102.0, 1e-5);
  EXPECT_NEAR(box_iou(a[0], b[1]), 70.0 / 130.0, 1e-5);
  auto m = match_boxes(a, b);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].a, 1);
  EXPECT_EQ(m[0].b, 0);
  EXPECT_EQ(m[1].a, 0);
  EXPECT_EQ(m[1].b, 1);
}

TEST(VisionMatching, ThresholdIsInclusive) {
  std::vector<BoxXYXY> a = {{0, 0, 10, 10}};
  std::vector<BoxXYXY> half = {{0, 0, 10, 5}};  // IoU exactly 0.5
  EXPECT_EQ(match_boxes(a, half, 0.5f).size(), 1u);
  std::vector<BoxXYXY> less = {{0, 0, 10, 4.9f}};
  EXPECT_TRUE(match_boxes(a, less, 0.5f).empty());
  EXPECT_TRUE(match_boxes({}, less).empty());
}

std::vector<Keypoint> unlabelled(size_t n) {
  return std::vector<Keypoint>(n, Keypoint{0, 0, 0});
}

TEST(VisionOks, SigmasAndArea) {
  auto s = oks_sigmas(17);
  ASSERT_EQ(s.size(), 17u);
  EXPECT_FLOAT_EQ(s[0], 0.026f);   // nose
  EXPECT_FLOAT_EQ(s[11], 0.107f);  // left hip
  EXPECT_FLOAT_EQ(s[16], 0.089f);  // right ankle
  EXPECT_FLOAT_EQ(oks_sigmas(4)[2], 0.25f);
  EXPECT_FLOAT_EQ(oks_area({0, 0, 10, 20}), 106.0f);
}

TEST(VisionOks, PerfectPredictionIsOne) {
  std::vector<Keypoint> gt = unlabelled(17);
  for (int k = 0; k < 17; ++k) gt[k] = {10.0f * k, 5.0f * k, 2};
  EXPECT_NEAR(oks(gt, gt, 5300), 1.0, 1e-6);
}

TEST(VisionOks, OneKeypointOffByThreePixels) {
  // Only the nose labelled; gt box 100x100 -> area 5300. e = 9 / ((2*0.026)^2 * 5300 * 2)
  // = 9 / 28.6624 = 0.314000; OKS = exp(-0.314000) = 0.730519.
  std::vector<Keypoint> gt = unlabelled(17), pred = unlabelled(17);
  gt[0] = {50, 50, 2};
  pred[0] = {53, 50, 0.9f};
  pred[5] = {999, 999, 1};  // unlabelled in gt: ignored
  EXPECT_NEAR(oks(gt, pred, oks_area({0, 0, 100, 100})), 0.730519, 1e-5);
}

TEST(VisionOks, MeanOverLabelledKeypoints) {
  // Nose exact (1) and left hip 10 px off: e = 100 / ((2*0.107)^2 * 5300 * 2) = 100 / 485.4376
  // = 0.206000 -> exp(-0.206) = 0.813833; mean (1 + 0.813833) / 2 = 0.906917.
  std::vector<Keypoint> gt = unlabelled(17), pred = unlabelled(17);
  gt[0] = {50, 50, 1};
  pred[0] = {50, 50, 1};
  gt[11] = {70, 80, 2};
  pred[11] = {70, 90, 1};
  EXPECT_NEAR(oks(gt, pred, 5300), 0.906917, 1e-5);
}

TEST(VisionOks, NoLabelledKeypointsGivesZero) {
  EXPECT_FLOAT_EQ(oks(unlabelled(17), unlabelled(17), 5300), 0.0f);
}

TEST(VisionOks, RejectsMismatchedCounts) {
  EXPECT_THROW(oks(unlabelled(17), unlabelled(16), 100), Error);
}

}  // namespace
}  // namespace edgeq
