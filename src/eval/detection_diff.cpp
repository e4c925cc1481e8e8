#include "eval/detection_diff.h"

#include <cmath>
#include <map>

#include "vision/matching.h"

namespace edgeq {

std::vector<std::pair<int, int>> match_detections(const std::vector<Detection>& ref,
                                                  const std::vector<Detection>& test,
                                                  float min_iou) {
  // Indices per class, so a box never matches one of another class.
  std::map<int, std::pair<std::vector<int>, std::vector<int>>> by_class;
  for (size_t i = 0; i < ref.size(); ++i) by_class[ref[i].cls].first.push_back(static_cast<int>(i));
  for (size_t i = 0; i < test.size(); ++i)
    by_class[test[i].cls].second.push_back(static_cast<int>(i));
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [cls, idx] : by_class) {
    std::vector<BoxXYXY> rb, tb;
    for (int i : idx.first) rb.push_back(ref[i].xyxy());
    for (int i : idx.second) tb.push_back(test[i].xyxy());
    for (const Match& m : match_boxes(rb, tb, min_iou))
      pairs.emplace_back(idx.first[m.a], idx.second[m.b]);
  }
  return pairs;
}

int64_t DetectionDiffAccumulator::add(const std::vector<Detection>& ref,
                                      const std::vector<Detection>& test) {
  ref_ += static_cast<int64_t>(ref.size());
  test_ += static_cast<int64_t>(test.size());
  int64_t matched = 0;
  for (const auto& [ri, ti] : match_detections(ref, test, min_iou_)) {
    const Detection& r = ref[ri];
    const Detection& t = test[ti];
    ++matched;
    box_.push_back(std::hypot(t.box[0] - r.box[0], t.box[1] - r.box[1]));
    box_.push_back(std::hypot(t.box[2] - r.box[2], t.box[3] - r.box[3]));
    score_.push_back(std::fabs(t.score - r.score));
    score_sum_ += static_cast<double>(t.score) - static_cast<double>(r.score);
    const size_t nk = std::min(r.kpts.size(), t.kpts.size());
    for (size_t k = 0; k < nk; ++k)
      if (r.kpts[k].v > kpt_visible_)
        kpt_.push_back(std::hypot(t.kpts[k].x - r.kpts[k].x, t.kpts[k].y - r.kpts[k].y));
  }
  matched_ += matched;
  return matched;
}

std::string match_rate_notice(const DetectionDiff& d) {
  return d.match_rate ? ""
                      : "neither model detected anything: no match rate (nothing to match is no "
                        "100 %; lower the confidence threshold or check the images)";
}

DetectionDiff DetectionDiffAccumulator::result() const {
  DetectionDiff d;
  d.ref_count = ref_;
  d.test_count = test_;
  d.matched = matched_;
  d.extra = test_ - matched_;
  d.missing = ref_ - matched_;
  if (ref_ > 0)
    d.match_rate = static_cast<double>(matched_) / static_cast<double>(ref_);
  else if (test_ > 0)
    d.match_rate = 0.0;
  d.box_px = summarize(box_);
  d.kpt_px = summarize(kpt_);
  d.score_abs = summarize(score_);
  d.score_bias = matched_ > 0 ? score_sum_ / static_cast<double>(matched_) : 0.0;
  return d;
}

}  // namespace edgeq
