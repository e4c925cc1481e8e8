// What quantization costs the user of a YOLO model, measured anchor by anchor on its raw output
// against the FP32 output on the same image (before NMS, so that small changes give small, smooth
// differences, which a search can rank; `compare` judges the final detections after NMS):
//   box_px    mean |delta| of cx, cy, w, h (input pixels) over the anchors FP32 scores above conf,
//   kpt_px    mean |delta| of keypoint x, y over those anchors' keypoints FP32 sees (v > 0.5),
//   score     mean |delta score| over anchors either model scores above conf / 4,
//   flipped   anchors on the other side of conf than FP32, per FP32 confident anchor.
// total() puts the groups on one scale, each divided by a unit: by default an error a user would
// notice (2 px of box, 2 px of keypoint, a 0.02 score shift, every confident anchor lost), or the
// groups of a reference loss (a search divides by its starting point's, so that each group
// counts as much as the others there). Raw pixel outputs would let box coordinates drown
// everything else, which is what the rel-L2 ranking of output0 did (issue 12).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "vision/yolo_layout.h"

namespace edgeq {

struct DetectionLoss {
  double box_px = 0, kpt_px = 0, score = 0, flipped = 0;
  int64_t confident = 0;  // FP32 anchors above conf, summed over images
  double total() const;
  // Each group divided by `unit`'s (a group that is 0 there counts at the default unit).
  double total(const DetectionLoss& unit) const;
};

class DetectionLossAccumulator {
 public:
  explicit DetectionLossAccumulator(YoloLayout layout, float conf = 0.25f)
      : layout_(std::move(layout)), conf_(conf) {}
  // `ref` and `test`: [1, channels, anchors] raw outputs of one image.
  void add(const Tensor& ref, const Tensor& test);
  DetectionLoss result() const;

 private:
  YoloLayout layout_;
  float conf_;
  double box_ = 0, kpt_ = 0, score_ = 0;
  int64_t box_n_ = 0, kpt_n_ = 0, score_n_ = 0, flipped_ = 0, confident_ = 0;
};

}  // namespace edgeq
