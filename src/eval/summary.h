// Summary statistics of an error sample (mean, 95th percentile, max), as reported by compare.
#pragma once
#include <cstdint>
#include <vector>

#include "core/percentile.h"

namespace edgeq {

struct Summary {
  int64_t count = 0;
  double mean = 0;
  double p95 = 0;  // NumPy's default (linear) percentile
  double max = 0;
};

Summary summarize(const std::vector<double>& values);

}  // namespace edgeq
