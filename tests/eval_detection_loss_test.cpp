// The detection loss (eval/detection_loss.h) on hand-made YOLO pose outputs.
#include <gtest/gtest.h>

#include "core/error.h"
#include "eval/detection_loss.h"

namespace edgeq {
namespace {

// [1, 56, 3]: three anchors of a 1-class, 17-keypoint (x, y, v) pose output.
Tensor pose_output(float score0, float score1, float score2) {
  Tensor t(DType::kFloat32, {1, 56, 3});
  float* x = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) x[i] = 0;
  const float scores[3] = {score0, score1, score2};
  for (int a = 0; a < 3; ++a) {
    for (int r = 0; r < 4; ++r) x[r * 3 + a] = 100.f + r;  // cx, cy, w, h
    x[4 * 3 + a] = scores[a];
    for (int k = 0; k < 17; ++k) {
      x[(5 + 3 * k) * 3 + a] = 50.f;    // x
      x[(6 + 3 * k) * 3 + a] = 60.f;    // y
      x[(7 + 3 * k) * 3 + a] = k < 10;  // visible: the first 10
    }
  }
  return t;
}

YoloLayout pose_layout() {
  return resolve_yolo_layout({1, 56, 3});
}

}  // namespace

TEST(DetectionLoss, HandComputedGroups) {
  Tensor ref = pose_output(0.9f, 0.3f, 0.01f), test = pose_output(0.8f, 0.2f, 0.01f);
  float* t = test.data<float>();
  t[0 * 3 + 0] += 2;               // anchor 0: cx off by 2 px
  t[5 * 3 + 1] += 4;               // anchor 1: keypoint 0 x off by 4 px (visible)
  t[(5 + 3 * 12) * 3 + 0] += 100;  // anchor 0: keypoint 12 x, not visible: ignored
  DetectionLossAccumulator acc(pose_layout());
  acc.add(ref, test);
  DetectionLoss l = acc.result();
  EXPECT_EQ(l.confident, 2);                    // anchors 0 and 1 score above 0.25
  EXPECT_DOUBLE_EQ(l.box_px, 2.0 / 8);          // 8 box numbers, one off by 2
  EXPECT_DOUBLE_EQ(l.kpt_px, 4.0 / 40);         // 2 anchors x 10 visible x 2 coordinates
  EXPECT_NEAR(l.score, (0.1 + 0.1) / 2, 1e-6);  // anchor 2 is below 0.25 / 4 on both sides
  EXPECT_DOUBLE_EQ(l.flipped, 1.0 / 2);         // anchor 1 fell to 0.2
  EXPECT_NEAR(l.total(), 0.25 / 2 + 0.1 / 2 + 0.1 / 0.02 + 0.5, 1e-6);
  DetectionLoss unit = l;
  EXPECT_NEAR(l.total(unit), 4.0, 1e-9);  // each group 1 against itself
  EXPECT_THROW(acc.add(ref, Tensor(DType::kFloat32, {1, 56, 4})), Error);
}

}  // namespace edgeq
