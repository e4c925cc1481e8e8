// Drawing detections (boxes, score labels, COCO-17 skeleton) and writing images atomically.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <utility>
#include <vector>

#include "vision/detection.h"
#include "vision/yolo_layout.h"

namespace edgeq {

// Ultralytics' COCO-17 skeleton as 0-based keypoint index pairs.
const std::vector<std::pair<int, int>>& coco17_skeleton();

struct DrawOptions {
  float kpt_conf = 0.5f;  // keypoints (and limbs) with v below this are not drawn
  int thickness = 0;      // 0: from the image size
};

// Draws on `img` (8-bit BGR) in place. `layout` supplies class names (may be null).
void draw_detections(cv::Mat& img, const std::vector<Detection>& dets,
                     const YoloLayout* layout = nullptr, const DrawOptions& opt = {});

// Encodes by the path's extension and writes through write_file_atomic.
void write_image_atomic(const std::string& path, const cv::Mat& img);

}  // namespace edgeq
