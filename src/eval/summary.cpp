#include "eval/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace edgeq {

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.p95 = percentile(v, 95);
  s.max = *std::max_element(v.begin(), v.end());
  return s;
}

}  // namespace edgeq
