// `edgeq run` on coco8-pose against ONNX Runtime's raw output decoded by a plain reference
// (written here: threshold, greedy NMS, undo letterbox), so decode, NMS and mapping are checked
// end to end through the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

struct RefDet {
  float box[4];
  float score;
  std::vector<std::array<float, 3>> kpts;
};

float iou(const float* a, const float* b) {
  float iw = std::max(0.f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  float ih = std::max(0.f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  float inter = iw * ih;
  float u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return u > 0 ? inter / u : 0.f;
}

// Plain decode of a [1, 56, N] pose output: score > conf, NMS at iou, letterbox undone.
std::vector<RefDet> reference_decode(const Tensor& y, const LetterboxInfo& lb, float conf,
                                     float iou_th) {
  const int64_t n = y.dim(2);
  const float* p = y.data<float>();
  std::vector<RefDet> cands;
  for (int64_t i = 0; i < n; ++i) {
    float s = p[4 * n + i];
    if (s <= conf) continue;
    RefDet d;
    float cx = p[i], cy = p[n + i], w = p[2 * n + i], h = p[3 * n + i];
    float xy[4] = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
    for (int k = 0; k < 4; ++k) {
      float pad = k % 2 == 0 ? lb.pad_left : lb.pad_top;
      float lim = k % 2 == 0 ? lb.orig_w : lb.orig_h;
      d.box[k] = std::clamp(float((xy[k] - pad) / lb.scale), 0.f, lim);
    }
    d.score = s;
    for (int k = 0; k < 17; ++k) {
      // Ultralytics' scale_coords clips keypoints to the image, as boxes.
      float kx = std::clamp(float((p[(5 + 3 * k) * n + i] - lb.pad_left) / lb.scale), 0.f,
                            float(lb.orig_w));
      float ky = std::clamp(float((p[(6 + 3 * k) * n + i] - lb.pad_top) / lb.scale), 0.f,
                            float(lb.orig_h));
      d.kpts.push_back({kx, ky, p[(7 + 3 * k) * n + i]});
    }
    cands.push_back(d);
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const RefDet& a, const RefDet& b) { return a.score > b.score; });
  std::vector<RefDet> kept;
  for (const auto& c : cands) {
    bool suppressed = false;
    for (const auto& k : kept) suppressed |= iou(c.box, k.box) > iou_th;
    if (!suppressed) kept.push_back(c);
  }
  return kept;
}

TEST(RunOrtParity, Coco8PoseDetectionsMatchOrtDecodedByReference) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const std::string model = test::real_model_path();
  const std::string images = test::coco8_pose_dir() + "/images";
  std::string dir = test::temp_dir("runparity");
  auto r = test::run_cli("run --model '" + model + "' --image '" + images + "' --json '" + dir +
                         "/d.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json ours = nlohmann::json::parse(read_file(dir + "/d.json"));
  ASSERT_EQ(ours.size(), 8u);

  std::vector<std::string> paths = list_images(images);
  std::vector<std::map<std::string, Tensor>> feeds;
  std::vector<LetterboxInfo> lbs;
  for (const auto& p : paths) {
    LetterboxInfo lb;
    feeds.push_back({{"images", preprocess_image(read_image(p), 640, 640, &lb)}});
    lbs.push_back(lb);
  }
  auto ort = test::run_ort_many(model, feeds);
  double worst_box = 0, worst_kpt = 0, worst_score = 0;
  size_t total = 0;
  for (size_t k = 0; k < paths.size(); ++k) {
    auto ref = reference_decode(ort[k].at("output0"), lbs[k], 0.25f, 0.7f);
    const nlohmann::json* mine = nullptr;
    for (const auto& o : ours)
      if (o["image"].get<std::string>() == paths[k]) mine = &o;
    ASSERT_NE(mine, nullptr) << paths[k];
    const auto& dets = (*mine)["detections"];
    ASSERT_EQ(dets.size(), ref.size()) << paths[k];
    total += ref.size();
    for (size_t i = 0; i < ref.size(); ++i) {
      for (int c = 0; c < 4; ++c)
        worst_box = std::max(worst_box, std::fabs(dets[i]["box"][c].get<double>() - ref[i].box[c]));
      worst_score = std::max(worst_score, std::fabs(dets[i]["score"].get<double>() - ref[i].score));
      for (int j = 0; j < 17; ++j)
        for (int c = 0; c < 2; ++c)
          worst_kpt = std::max(
              worst_kpt, std::fabs(dets[i]["keypoints"][j][c].get<double>() - ref[i].kpts[j][c]));
    }
  }
  std::printf(
      "%zu detections; max |edgeq run - ORT+reference|: box %.4f px, keypoint %.4f px, score "
      "%.2e\n",
      total, worst_box, worst_kpt, worst_score);
  EXPECT_GT(total, 15u);
  EXPECT_LE(worst_box, 0.05);
  EXPECT_LE(worst_kpt, 0.05);
  EXPECT_LE(worst_score, 1e-4);
}

}  // namespace
}  // namespace edgeq
