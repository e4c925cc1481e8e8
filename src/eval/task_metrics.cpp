#include "eval/task_metrics.h"

#include "core/error.h"
#include "vision/matching.h"

namespace edgeq {

void TaskMetricsAccumulator::add(const std::vector<Label>& labels,
                                 const std::vector<Detection>& dets, const std::string& what) {
  std::vector<int> label_cls, pred_cls;
  std::vector<float> conf;
  for (const auto& l : labels) label_cls.push_back(l.cls);
  for (const auto& d : dets) {
    pred_cls.push_back(d.cls);
    conf.push_back(d.score);
  }
  std::vector<std::vector<double>> iou(labels.size(), std::vector<double>(dets.size(), 0.0));
  std::vector<std::vector<double>> oks_sim = iou;
  for (size_t l = 0; l < labels.size(); ++l)
    for (size_t p = 0; p < dets.size(); ++p) {
      if (labels[l].cls != dets[p].cls) continue;
      iou[l][p] = box_iou(labels[l].box, dets[p].xyxy());
      if (!pose_) continue;
      EDGEQ_CHECK(labels[l].kpts.size() == dets[p].kpts.size(), what, ": labels have ",
                  labels[l].kpts.size(), " keypoints per object but the model predicts ",
                  dets[p].kpts.size());
      oks_sim[l][p] = oks(labels[l].kpts, dets[p].kpts, oks_area(labels[l].box));
    }
  const auto& thr = ap_thresholds();
  box_.add(label_cls, pred_cls, conf, match_predictions(iou, dets.size(), thr));
  if (pose_) kpt_.add(label_cls, pred_cls, conf, match_predictions(oks_sim, dets.size(), thr));
}

TaskMetrics TaskMetricsAccumulator::result() const {
  TaskMetrics m;
  m.box = box_.result();
  m.has_pose = pose_;
  if (pose_) m.pose = kpt_.result();
  return m;
}

}  // namespace edgeq
