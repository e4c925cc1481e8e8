#include "eval/detection_loss.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace edgeq {

namespace {

constexpr double kBoxPx = 2, kKptPx = 2, kScore = 0.02, kFlipped = 1;

double part(double value, double unit, double fallback) {
  return value / (unit > 0 ? unit : fallback);
}

}  // namespace

double DetectionLoss::total() const {
  return box_px / kBoxPx + kpt_px / kKptPx + score / kScore + flipped / kFlipped;
}

double DetectionLoss::total(const DetectionLoss& unit) const {
  return part(box_px, unit.box_px, kBoxPx) + part(kpt_px, unit.kpt_px, kKptPx) +
         part(score, unit.score, kScore) + part(flipped, unit.flipped, kFlipped);
}

void DetectionLossAccumulator::add(const Tensor& ref, const Tensor& test) {
  const int64_t ch = layout_.channels(), n = layout_.num_anchors;
  EDGEQ_CHECK(ref.shape() == test.shape() && ref.rank() == 3 && ref.dim(1) == ch && ref.dim(2) == n,
              "detection loss: outputs ", shape_str(ref.shape()), " and ", shape_str(test.shape()),
              " are not both [1, ", ch, ", ", n, "]");
  const float* r = ref.data<float>();
  const float* t = test.data<float>();
  auto at = [n](const float* x, int64_t row, int64_t a) { return x[row * n + a]; };
  auto best_score = [&](const float* x, int64_t a) {
    float s = 0;
    for (int c = 0; c < layout_.num_classes; ++c) s = std::max(s, at(x, 4 + c, a));
    return s;
  };
  const int64_t kpt0 = 4 + layout_.num_classes, kd = layout_.keypoint_dims;
  for (int64_t a = 0; a < n; ++a) {
    const float sr = best_score(r, a), st = best_score(t, a);
    const bool confident = sr > conf_;
    if (confident || st > conf_ / 4 || sr > conf_ / 4) {
      score_ += std::fabs(double(st) - sr);
      ++score_n_;
    }
    flipped_ += confident != (st > conf_);
    if (!confident) continue;
    ++confident_;
    for (int64_t row = 0; row < 4; ++row) box_ += std::fabs(double(at(t, row, a)) - at(r, row, a));
    box_n_ += 4;
    for (int k = 0; k < layout_.num_keypoints; ++k) {
      const int64_t base = kpt0 + int64_t{k} * kd;
      if (kd == 3 && at(r, base + 2, a) <= 0.5f) continue;
      for (int64_t d = 0; d < 2; ++d)
        kpt_ += std::fabs(double(at(t, base + d, a)) - at(r, base + d, a));
      kpt_n_ += 2;
    }
  }
}

DetectionLoss DetectionLossAccumulator::result() const {
  DetectionLoss l;
  l.box_px = box_n_ ? box_ / box_n_ : 0;
  l.kpt_px = kpt_n_ ? kpt_ / kpt_n_ : 0;
  l.score = score_n_ ? score_ / score_n_ : 0;
  l.flipped = confident_ ? double(flipped_) / confident_ : double(flipped_);
  l.confident = confident_;
  return l;
}

}  // namespace edgeq
