// Decoding an Ultralytics raw head output into per-anchor candidates (input-pixel coordinates).
#pragma once
#include <vector>

#include "core/tensor.h"
#include "vision/detection.h"
#include "vision/yolo_layout.h"

namespace edgeq {

struct Candidate {
  BoxXYXY box;  // x1, y1, x2, y2 in input pixels (from cx, cy, w, h)
  float score = 0;
  int cls = 0;  // best class (first one on ties)
  int anchor = 0;
};

// Anchors whose best class score is > conf (strictly, as Ultralytics), in anchor order.
// Throws when `output` is not float32 of the layout's shape.
std::vector<Candidate> decode_candidates(const Tensor& output, const YoloLayout& layout,
                                         float conf);

// The keypoints of one anchor (x, y in input pixels; v = the model's visibility, or 1 when the
// layout has only x, y). Empty for a detect layout.
std::vector<Keypoint> decode_keypoints(const Tensor& output, const YoloLayout& layout, int anchor);

}  // namespace edgeq
