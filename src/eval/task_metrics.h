// Task metrics of one model against labels: box mAP50 / mAP50-95 (IoU) and, for pose models with
// pose labels, keypoint mAP50 / mAP50-95 (OKS), as Ultralytics' DetectionValidator and
// PoseValidator compute them (see eval/ap.h).
#pragma once
#include <vector>

#include "eval/ap.h"
#include "vision/detection.h"
#include "vision/labels.h"

namespace edgeq {

struct TaskMetrics {
  MapResult box;
  bool has_pose = false;
  MapResult pose;
};

class TaskMetricsAccumulator {
 public:
  // pose: also compute OKS mAP (labels and detections must then carry the same keypoint count).
  explicit TaskMetricsAccumulator(bool pose) : pose_(pose) {}
  // One image: its labels and the model's detections (descending score), in the same pixels.
  // `what` names the image in errors.
  void add(const std::vector<Label>& labels, const std::vector<Detection>& dets,
           const std::string& what = "image");
  TaskMetrics result() const;

 private:
  bool pose_;
  MapAccumulator box_, kpt_;
};

}  // namespace edgeq
