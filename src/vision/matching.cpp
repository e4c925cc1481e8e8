#include "vision/matching.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace edgeq {

std::vector<Match> match_boxes(const std::vector<BoxXYXY>& a, const std::vector<BoxXYXY>& b,
                               float min_iou) {
  std::vector<Match> pairs;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      const float iou = box_iou(a[i], b[j]);
      if (iou >= min_iou) pairs.push_back({static_cast<int>(i), static_cast<int>(j), iou});
    }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const Match& x, const Match& y) { return x.iou > y.iou; });
  std::vector<char> used_a(a.size(), 0), used_b(b.size(), 0);
  std::vector<Match> out;
  for (const Match& m : pairs) {
    if (used_a[m.a] || used_b[m.b]) continue;
    used_a[m.a] = used_b[m.b] = 1;
    out.push_back(m);
  }
  return out;
}

std::vector<float> oks_sigmas(size_t nk) {
  if (nk == 17)
    return {0.026f, 0.025f, 0.025f, 0.035f, 0.035f, 0.079f, 0.079f, 0.072f, 0.072f,
            0.062f, 0.062f, 0.107f, 0.107f, 0.087f, 0.087f, 0.089f, 0.089f};
  return std::vector<float>(nk, nk ? 1.0f / static_cast<float>(nk) : 0.0f);
}

float oks_area(const BoxXYXY& g) {
  return (g[2] - g[0]) * (g[3] - g[1]) * 0.53f;
}

float oks(const std::vector<Keypoint>& gt, const std::vector<Keypoint>& pred, float area,
          const std::vector<float>& sigmas) {
  EDGEQ_CHECK(gt.size() == pred.size() && gt.size() == sigmas.size(), "OKS: ", gt.size(),
              " labelled keypoints, ", pred.size(), " predicted, ", sigmas.size(), " sigmas");
  const double eps = 1e-7;
  double sum = 0;
  int labelled = 0;
  for (size_t k = 0; k < gt.size(); ++k) {
    if (gt[k].v == 0) continue;
    ++labelled;
    const double dx = gt[k].x - pred[k].x, dy = gt[k].y - pred[k].y;
    const double s2 = 4.0 * sigmas[k] * sigmas[k];
    sum += std::exp(-(dx * dx + dy * dy) / (s2 * (area + eps) * 2.0));
  }
  return static_cast<float>(sum / (labelled + eps));
}

float oks(const std::vector<Keypoint>& gt, const std::vector<Keypoint>& pred, float area) {
  return oks(gt, pred, area, oks_sigmas(gt.size()));
}

}  // namespace edgeq
