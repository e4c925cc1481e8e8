// Postprocess: raw YOLO output -> final detections (threshold, NMS, keypoints, undo letterbox).
#pragma once
#include <vector>

#include "core/tensor.h"
#include "vision/detection.h"
#include "vision/letterbox.h"
#include "vision/yolo_layout.h"

namespace edgeq {

struct PostprocessOptions {
  float conf = 0.25f;  // keep scores > conf
  float iou = 0.7f;    // NMS drops same-class boxes with IoU > iou
  int max_det = 300;
};

// Detections in input (letterboxed) pixels, highest score first.
std::vector<Detection> decode_detections(const Tensor& output0, const PostprocessOptions& opt,
                                         const YoloLayout& layout);

// Detections in original-image pixels (boxes and keypoints clipped to the image).
std::vector<Detection> postprocess(const Tensor& output0, const LetterboxInfo& lb,
                                   const PostprocessOptions& opt, const YoloLayout& layout);

}  // namespace edgeq
