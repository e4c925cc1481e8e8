// Detection: one object found in an image (box, score, class, optional keypoints), in the pixel
// coordinates of whatever image the producer says (input pixels before undoing the letterbox,
// original-image pixels after).
#pragma once
#include <array>
#include <vector>

namespace edgeq {

struct Keypoint {
  float x = 0;
  float y = 0;
  float v = 0;  // visibility / confidence (model: sigmoid output; labels: 0, 1 or 2)
};

// Axis-aligned box as x1, y1, x2, y2.
using BoxXYXY = std::array<float, 4>;

struct Detection {
  float box[4] = {0, 0, 0, 0};  // x1, y1, x2, y2
  float score = 0;
  int cls = 0;
  std::vector<Keypoint> kpts;

  BoxXYXY xyxy() const { return {box[0], box[1], box[2], box[3]}; }
};

// Intersection over union of two xyxy boxes (0 when the union is empty).
float box_iou(const BoxXYXY& a, const BoxXYXY& b);

}  // namespace edgeq
