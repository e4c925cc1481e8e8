// The real YOLO11n-pose on the 8 coco8-pose images, through the one preprocessing path, the
// Executor and postprocess; judged against the dataset's labels (not against our own outputs).
// Thresholds from models/README.md (ONNX Runtime: 17 of 21 matched at IoU >= 0.5,
// median OKS 0.750).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "vision/image_io.h"
#include "vision/labels.h"
#include "vision/letterbox.h"
#include "vision/matching.h"
#include "vision/postprocess.h"
#include "test_util.h"

namespace edgeq {
namespace {

TEST(VisionModel, Coco8PoseMatchesLabels) {
  const std::string model = test::source_dir() + "/models/yolo11n-pose.onnx";
  const std::string images = test::source_dir() + "/data/coco8-pose/images";
  ASSERT_TRUE(std::filesystem::exists(model) && std::filesystem::exists(images))
      << "needs " << model << " and " << images;

  Graph g = load_onnx(model);
  const std::string in_name = g.inputs.at(0).name;
  Executor ex(g);
  int labelled = 0, matched = 0, extra = 0;
  std::vector<float> oks_values;
  for (const std::string& path : expand_image_paths(images)) {
    cv::Mat img = read_image(path);
    LetterboxInfo lb;
    Tensor x = preprocess_image(img, 640, 640, &lb);
    auto out = ex.run({{in_name, x}});
    const Tensor& y = out.at("output0");
    YoloLayout lay = yolo_layout_for(g, y.shape());
    std::vector<Detection> dets = postprocess(y, lb, PostprocessOptions{}, lay);
    std::vector<Label> labels = read_yolo_labels(label_path_for_image(path), img.cols, img.rows);

    std::vector<BoxXYXY> lb_boxes, det_boxes;
    for (const Label& l : labels) lb_boxes.push_back(l.box);
    for (const Detection& d : dets) det_boxes.push_back(d.xyxy());
    std::vector<Match> m = match_boxes(lb_boxes, det_boxes, 0.5f);
    labelled += static_cast<int>(labels.size());
    matched += static_cast<int>(m.size());
    extra += static_cast<int>(dets.size() - m.size());
    std::cout << std::filesystem::path(path).filename().string() << ": " << labels.size()
              << " labelled, " << dets.size() << " detected, " << m.size() << " matched; OKS";
    for (const Match& mm : m) {
      const float s = oks(labels[mm.a].kpts, dets[mm.b].kpts, oks_area(labels[mm.a].box));
      oks_values.push_back(s);
      std::cout << " " << s;
    }
    std::cout << "\n";
  }
  ASSERT_FALSE(oks_values.empty());
  std::sort(oks_values.begin(), oks_values.end());
  const float median = oks_values[oks_values.size() / 2];
  std::cout << "matched " << matched << "/" << labelled << ", extra " << extra << ", median OKS "
            << median << "\n";
  EXPECT_EQ(labelled, 21);
  EXPECT_GE(matched, 17);
  EXPECT_GE(median, 0.7f);
}

}  // namespace
}  // namespace edgeq
