#include "vision/nms.h"

#include <algorithm>
#include <numeric>

namespace edgeq {

std::vector<int> nms(const std::vector<Candidate>& cands, float iou_threshold, int max_det) {
  std::vector<int> order(cands.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cands[a].score > cands[b].score; });
  std::vector<int> kept;
  std::vector<char> dropped(cands.size(), 0);
  for (size_t oi = 0; oi < order.size() && static_cast<int>(kept.size()) < max_det; ++oi) {
    const int i = order[oi];
    if (dropped[i]) continue;
    kept.push_back(i);
    for (size_t oj = oi + 1; oj < order.size(); ++oj) {
      const int j = order[oj];
      if (dropped[j] || cands[j].cls != cands[i].cls) continue;
      if (box_iou(cands[i].box, cands[j].box) > iou_threshold) dropped[j] = 1;
    }
  }
  return kept;
}

}  // namespace edgeq
