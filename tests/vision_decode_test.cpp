// YOLO layout resolution, decoding and NMS on hand-made output tensors with known answers.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "core/error.h"
#include "ir/onnx_io.h"
#include "vision/nms.h"
#include "vision/postprocess.h"
#include "vision/yolo_decode.h"
#include "vision/yolo_layout.h"
#include "test_util.h"

namespace edgeq {
namespace {

// A [1, C, N] output filled column by column: anchor i gets box (cx, cy, w, h) and the given
// class scores / extra rows.
class FakeOutput {
 public:
  FakeOutput(int channels, int anchors) : t_(DType::kFloat32, {1, channels, anchors}) {}
  void set(int anchor, int row, float v) {
    t_.data<float>()[static_cast<int64_t>(row) * t_.dim(2) + anchor] = v;
  }
  void box(int anchor, float cx, float cy, float w, float h) {
    set(anchor, 0, cx);
    set(anchor, 1, cy);
    set(anchor, 2, w);
    set(anchor, 3, h);
  }
  const Tensor& tensor() const { return t_; }

 private:
  Tensor t_;
};

TEST(VisionLayout, FallbackByChannelCount) {
  YoloLayout pose = resolve_yolo_layout({1, 56, 8400});
  EXPECT_EQ(pose.num_classes, 1);
  EXPECT_EQ(pose.num_keypoints, 17);
  EXPECT_EQ(pose.keypoint_dims, 3);
  EXPECT_EQ(pose.num_anchors, 8400);
  YoloLayout det = resolve_yolo_layout({1, 84, 8400});
  EXPECT_EQ(det.num_classes, 80);
  EXPECT_EQ(det.num_keypoints, 0);
  EXPECT_EQ(det.channels(), 84);
}

TEST(VisionLayout, FromMetadataStrings) {
  YoloLayout l =
      resolve_yolo_layout({1, 56, 100}, std::string("[17, 3]"), std::string("{0: 'person'}"));
  EXPECT_EQ(l.num_classes, 1);
  EXPECT_EQ(l.num_keypoints, 17);
  EXPECT_EQ(l.class_name(0), "person");
  EXPECT_EQ(l.source, "metadata");
  // Two classes, 4 keypoints of (x, y): 4 + 2 + 8 = 14 channels.
  YoloLayout m =
      resolve_yolo_layout({1, 14, 10}, std::string("[4, 2]"), std::string("{0: 'a', 1: \"it's\"}"));
  EXPECT_EQ(m.num_classes, 2);
  EXPECT_EQ(m.keypoint_dims, 2);
  EXPECT_EQ(m.class_name(1), "it's");
}

TEST(VisionLayout, ParsesMetadataHelpers) {
  EXPECT_EQ(parse_int_list("[17, 3]"), (std::vector<int>{17, 3}));
  EXPECT_EQ(parse_class_names("{0: 'person', 1: 'bicycle'}"),
            (std::vector<std::string>{"person", "bicycle"}));
  EXPECT_TRUE(parse_class_names("{}").empty());
}

void expect_error_with(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(VisionLayout, RejectsShapesThatCannotBeYolo) {
  expect_error_with([] { resolve_yolo_layout({56, 8400}); }, "expected a YOLO raw output");
  expect_error_with([] { resolve_yolo_layout({2, 56, 8400}); }, "batch must be 1");
  expect_error_with([] { resolve_yolo_layout({1, 4, 8400}); }, "at least 1 class");
  expect_error_with(
      [] {
        resolve_yolo_layout({1, 57, 8400}, std::string("[17, 3]"), std::string("{0: 'person'}"));
      },
      "needs 56 channels, not 57");
  expect_error_with(
      [] {
        resolve_yolo_layout({1, 55, 8400}, std::string("[17, 3]"), std::string("{}"));
      },
      "at least 1");
  expect_error_with(
      [] {
        resolve_yolo_layout({1, 56, 8400}, std::string("[17, 4]"));
      },
      "kpt_shape");
}

TEST(VisionLayout, RealModelMetadata) {
  const std::string path = test::source_dir() + "/models/yolo11n-pose.onnx";
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing from this checkout";
  Graph g = load_onnx(path);
  YoloLayout l = yolo_layout_for(g, {1, 56, 8400});
  EXPECT_EQ(l.source, "metadata");
  EXPECT_EQ(l.num_classes, 1);
  EXPECT_EQ(l.num_keypoints, 17);
  EXPECT_EQ(l.keypoint_dims, 3);
  EXPECT_EQ(l.class_name(0), "person");
}

// Detect, 2 classes, 5 anchors:
//  a0 (50,50,20,20) class0 0.9            -> kept
//  a1 (52,50,20,20) class0 0.8            -> IoU with a0 = 360/440 = 0.818 > 0.7: suppressed
//  a2 (52,50,20,20) class1 0.85           -> other class: kept although it overlaps a0
//  a3 (200,200,10,10) class0 0.25 exactly -> not > 0.25: dropped
//  a4 (300,300,10,10) class0 0.26         -> kept
TEST(VisionDecode, ThresholdNmsAndClasses) {
  FakeOutput o(6, 5);
  o.box(0, 50, 50, 20, 20);
  o.set(0, 4, 0.9f);
  o.box(1, 52, 50, 20, 20);
  o.set(1, 4, 0.8f);
  o.box(2, 52, 50, 20, 20);
  o.set(2, 5, 0.85f);
  o.set(2, 4, 0.1f);
  o.box(3, 200, 200, 10, 10);
  o.set(3, 4, 0.25f);
  o.box(4, 300, 300, 10, 10);
  o.set(4, 4, 0.26f);
  YoloLayout lay = resolve_yolo_layout(o.tensor().shape());
  ASSERT_EQ(lay.num_classes, 2);

  std::vector<Candidate> c = decode_candidates(o.tensor(), lay, 0.25f);
  ASSERT_EQ(c.size(), 4u);  // a3 dropped
  EXPECT_EQ(c[2].anchor, 2);
  EXPECT_EQ(c[2].cls, 1);
  EXPECT_FLOAT_EQ(c[0].box[0], 40);
  EXPECT_FLOAT_EQ(c[0].box[1], 40);
  EXPECT_FLOAT_EQ(c[0].box[2], 60);
  EXPECT_FLOAT_EQ(c[0].box[3], 60);

  std::vector<Detection> d = decode_detections(o.tensor(), PostprocessOptions{}, lay);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_FLOAT_EQ(d[0].score, 0.9f);
  EXPECT_EQ(d[0].cls, 0);
  EXPECT_FLOAT_EQ(d[1].score, 0.85f);
  EXPECT_EQ(d[1].cls, 1);
  EXPECT_FLOAT_EQ(d[2].score, 0.26f);
  EXPECT_TRUE(d[0].kpts.empty());

  // A looser NMS threshold keeps a1 too; a stricter score threshold keeps only a0, a2.
  PostprocessOptions loose;
  loose.iou = 0.85f;
  EXPECT_EQ(decode_detections(o.tensor(), loose, lay).size(), 4u);
  PostprocessOptions strict;
  strict.conf = 0.84f;
  EXPECT_EQ(decode_detections(o.tensor(), strict, lay).size(), 2u);
}

// Boxes [0,0,10,10] and [0,0,10,5] have IoU exactly 0.5: suppressed only when IoU > threshold.
TEST(VisionNms, IouThresholdIsStrict) {
  std::vector<Candidate> c(2);
  c[0].box = {0, 0, 10, 10};
  c[0].score = 0.9f;
  c[1].box = {0, 0, 10, 5};
  c[1].score = 0.8f;
  c[1].anchor = 1;
  EXPECT_FLOAT_EQ(box_iou(c[0].box, c[1].box), 0.5f);
  EXPECT_EQ(nms(c, 0.5f, 300).size(), 2u);
  EXPECT_EQ(nms(c, 0.49f, 300), (std::vector<int>{0}));
}

TEST(VisionNms, EqualScoresKeepInputOrderAndMaxDet) {
  std::vector<Candidate> c(4);
  for (int i = 0; i < 4; ++i) {
    c[i].box = {i * 20.0f, 0, i * 20.0f + 10, 10};  // disjoint
    c[i].score = 0.5f;
    c[i].anchor = i;
  }
  c[3].score = 0.6f;
  EXPECT_EQ(nms(c, 0.7f, 300), (std::vector<int>{3, 0, 1, 2}));
  EXPECT_EQ(nms(c, 0.7f, 2), (std::vector<int>{3, 0}));
  // Identical boxes with equal scores: the first one wins.
  for (auto& x : c) x.box = {0, 0, 10, 10};
  c[3].score = 0.5f;
  EXPECT_EQ(nms(c, 0.7f, 300), (std::vector<int>{0}));
}

// Pose layout from metadata; one person at anchor 3 of 6; the letterbox of a 1280x720 image
// into 640x640 (r = 0.5, top pad 140) maps input (x, y) to ((x - 0) * 2, (y - 140) * 2).
TEST(VisionDecode, PoseKeypointsAndLetterboxUndo) {
  const int n = 6;
  FakeOutput o(56, n);
  o.box(3, 100, 240, 60, 300);  // x 70..130, y 90..390 -> y1 in padding, clipped to 0
  o.set(3, 4, 0.9f);
  for (int k = 0; k < 17; ++k) {
    o.set(3, 5 + 3 * k, 100.0f + k);
    o.set(3, 6 + 3 * k, 240.0f + k);
    o.set(3, 7 + 3 * k, k % 2 ? 0.9f : 0.1f);
  }
  YoloLayout lay =
      resolve_yolo_layout(o.tensor().shape(), std::string("[17, 3]"), std::string("{0: 'person'}"));
  LetterboxInfo lb = compute_letterbox(1280, 720, 640, 640);
  ASSERT_EQ(lb.pad_top, 140);
  std::vector<Detection> d = postprocess(o.tensor(), lb, PostprocessOptions{}, lay);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FLOAT_EQ(d[0].box[0], 140);
  EXPECT_FLOAT_EQ(d[0].box[1], 0);  // (90 - 140) * 2 < 0 -> clipped
  EXPECT_FLOAT_EQ(d[0].box[2], 260);
  EXPECT_FLOAT_EQ(d[0].box[3], 500);
  ASSERT_EQ(d[0].kpts.size(), 17u);
  EXPECT_FLOAT_EQ(d[0].kpts[0].x, 200);
  EXPECT_FLOAT_EQ(d[0].kpts[0].y, 200);
  EXPECT_FLOAT_EQ(d[0].kpts[0].v, 0.1f);
  EXPECT_FLOAT_EQ(d[0].kpts[16].x, 232);
  EXPECT_FLOAT_EQ(d[0].kpts[16].y, 232);
  EXPECT_FLOAT_EQ(d[0].kpts[5].v, 0.9f);
}

TEST(VisionDecode, RejectsOutputOfWrongShape) {
  YoloLayout lay = resolve_yolo_layout({1, 56, 8400});
  Tensor wrong(DType::kFloat32, {1, 56, 100});
  expect_error_with([&] { decode_candidates(wrong, lay, 0.25f); }, "[1,56,100]");
}

}  // namespace
}  // namespace edgeq
