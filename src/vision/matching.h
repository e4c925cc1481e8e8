// Matching and keypoint similarity for evaluation: one-to-one greedy box matching by IoU, and
// OKS as Ultralytics computes it (kpt_iou with the COCO sigmas, area = box w*h*0.53).
#pragma once
#include <cstddef>
#include <vector>

#include "vision/detection.h"

namespace edgeq {

struct Match {
  int a = -1;  // index into the first list (e.g. labels or reference detections)
  int b = -1;  // index into the second list (e.g. detections under test)
  float iou = 0;
};

// All pairs with IoU >= min_iou, taken by descending IoU (ties: lower a, then lower b), each
// index used at most once. Returned in that order.
std::vector<Match> match_boxes(const std::vector<BoxXYXY>& a, const std::vector<BoxXYXY>& b,
                               float min_iou = 0.5f);

// COCO keypoint sigmas for 17 keypoints; for other counts Ultralytics uses 1/nk each.
std::vector<float> oks_sigmas(size_t num_keypoints);

// The area OKS uses for a ground-truth box: w * h * 0.53.
float oks_area(const BoxXYXY& gt_box);

// OKS of `pred` against `gt` (same keypoint count): mean over gt keypoints with v != 0 of
// exp(-d^2 / ((2 sigma)^2 * (area + 1e-7) * 2)); 0 when gt has no labelled keypoint.
float oks(const std::vector<Keypoint>& gt, const std::vector<Keypoint>& pred, float area,
          const std::vector<float>& sigmas);
float oks(const std::vector<Keypoint>& gt, const std::vector<Keypoint>& pred, float area);

}  // namespace edgeq
