// Detections of a test model against the reference model's detections on the same image:
// one-to-one matching at IoU >= 0.5 within each class (greedy by IoU, vision/matching.h), then
// errors over matched pairs, in whatever pixel space the detections are given (compare uses
// original-image pixels).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/summary.h"
#include "vision/detection.h"

namespace edgeq {

struct DetectionDiff {
  int64_t ref_count = 0;   // reference detections
  int64_t test_count = 0;  // test detections
  int64_t matched = 0;
  int64_t extra = 0;    // test detections with no reference partner
  int64_t missing = 0;  // reference detections with no test partner
  // matched / ref_count; none when neither model detected anything (nothing to match: not 100 %),
  // 0 when only the test model did.
  std::optional<double> match_rate;
  Summary box_px;         // corner distance |(x1,y1)_t - (x1,y1)_r| and |(x2,y2)_t - (x2,y2)_r|
  Summary kpt_px;         // keypoint distance over keypoints visible in the reference (v > 0.5)
  Summary score_abs;      // |score_t - score_r| over matched pairs
  double score_bias = 0;  // mean of score_t - score_r over matched pairs (< 0: test scores lower)
};

// One-to-one pairs (reference index, test index) at IoU >= min_iou, matched within each class
// (greedy by IoU, vision/matching.h), classes in ascending order.
std::vector<std::pair<int, int>> match_detections(const std::vector<Detection>& ref,
                                                  const std::vector<Detection>& test,
                                                  float min_iou = 0.5f);

// "neither model detected anything: no match rate" when `d` has none, else "".
std::string match_rate_notice(const DetectionDiff& d);

class DetectionDiffAccumulator {
 public:
  explicit DetectionDiffAccumulator(float min_iou = 0.5f, float kpt_visible = 0.5f)
      : min_iou_(min_iou), kpt_visible_(kpt_visible) {}
  // Adds one image; returns the number of matched pairs in it.
  int64_t add(const std::vector<Detection>& ref, const std::vector<Detection>& test);
  DetectionDiff result() const;

 private:
  float min_iou_, kpt_visible_;
  int64_t ref_ = 0, test_ = 0, matched_ = 0;
  std::vector<double> box_, kpt_, score_;
  double score_sum_ = 0;  // signed, for score_bias
};

}  // namespace edgeq
