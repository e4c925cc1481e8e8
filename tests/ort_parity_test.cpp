// Whole-model parity with ONNX Runtime on the real YOLO11n-pose and coco8-pose images.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

struct RowErrors {
  double box_px = 0, score = 0, kpt_px = 0, kpt_vis = 0;
};

// Max error per row family of a pose output [1, 56, N]: rows 0-3 boxes, 4 score,
// then (x, y, v) per keypoint.
RowErrors compare_pose(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  RowErrors e;
  const int64_t rows = a.dim(1), n = a.dim(2);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i) {
      double d = std::fabs(double(a.data<float>()[r * n + i]) - b.data<float>()[r * n + i]);
      if (r < 4)
        e.box_px = std::max(e.box_px, d);
      else if (r == 4)
        e.score = std::max(e.score, d);
      else if ((r - 5) % 3 == 2)
        e.kpt_vis = std::max(e.kpt_vis, d);
      else
        e.kpt_px = std::max(e.kpt_px, d);
    }
  return e;
}

TEST(OrtParity, RealPoseModelOnCoco8) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const std::string model = test::real_model_path();
  Graph g = load_onnx(model);
  ExecutorOptions opt;
  opt.threads = 2;
  Executor ex(g, opt);
  std::vector<std::string> images = list_images(test::coco8_pose_dir() + "/images");
  ASSERT_EQ(images.size(), 8u);
  std::vector<std::map<std::string, Tensor>> feeds;
  std::vector<Tensor> ours;
  for (const auto& path : images) {
    Tensor x = preprocess_image(read_image(path), 640, 640, nullptr);
    feeds.push_back({{"images", x}});
    ours.push_back(ex.run({{"images", x}}).at("output0"));
  }
  auto ref = test::run_ort_many(model, feeds);
  RowErrors worst;
  for (size_t k = 0; k < images.size(); ++k) {
    RowErrors e = compare_pose(ours[k], ref[k].at("output0"));
    worst.box_px = std::max(worst.box_px, e.box_px);
    worst.score = std::max(worst.score, e.score);
    worst.kpt_px = std::max(worst.kpt_px, e.kpt_px);
    worst.kpt_vis = std::max(worst.kpt_vis, e.kpt_vis);
  }
  std::printf(
      "max |edgeq - ORT| over 8 images: box %.2e px, score %.2e, keypoint %.2e px, "
      "keypoint visibility %.2e\n",
      worst.box_px, worst.score, worst.kpt_px, worst.kpt_vis);
  EXPECT_LE(worst.box_px, 0.01);
  EXPECT_LE(worst.kpt_px, 0.01);
  EXPECT_LE(worst.score, 1e-4);
  EXPECT_LE(worst.kpt_vis, 1e-4);
}

// The same with fusion and channels-last off: the plain path must agree too.
TEST(OrtParity, RealPoseModelPlainPath) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const std::string model = test::real_model_path();
  Graph g = load_onnx(model);
  ExecutorOptions opt;
  opt.fuse = false;
  opt.channels_last = false;
  Executor ex(g, opt);
  std::vector<std::string> images = list_images(test::coco8_pose_dir() + "/images");
  Tensor x = preprocess_image(read_image(images.at(0)), 640, 640, nullptr);
  Tensor ours = ex.run({{"images", x}}).at("output0");
  Tensor ref = test::run_ort(model, {{"images", x}}).at("output0");
  RowErrors e = compare_pose(ours, ref);
  EXPECT_LE(e.box_px, 0.01);
  EXPECT_LE(e.kpt_px, 0.01);
  EXPECT_LE(e.score, 1e-4);
}

// Load then save must give a model that ORT runs identically.
TEST(OrtParity, OnnxRoundTripIsLossless) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const std::string model = test::real_model_path();
  Graph g = load_onnx(model);
  std::string dir = test::temp_dir("roundtrip");
  save_onnx(g, dir + "/rt.onnx");
  Graph again = load_onnx(dir + "/rt.onnx");
  EXPECT_EQ(again.nodes.size(), g.nodes.size());
  EXPECT_EQ(again.initializers.size(), g.initializers.size());
  EXPECT_EQ(again.metadata, g.metadata);
  Tensor x(DType::kFloat32, {1, 3, 640, 640});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float((i * 7919) % 1000) / 1000.f;
  auto a = test::run_ort(model, {{"images", x}}).at("output0");
  auto b = test::run_ort(dir + "/rt.onnx", {{"images", x}}).at("output0");
  EXPECT_EQ(test::max_abs_diff(a, b), 0.0);
}

}  // namespace
}  // namespace edgeq
