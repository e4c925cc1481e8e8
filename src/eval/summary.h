// Summary statistics of an error sample (mean, 95th percentile, max), as reported by compare.
#pragma once
#include <cstdint>
#include <vector>

namespace edgeq {

struct Summary {
  int64_t count = 0;
  double mean = 0;
  double p95 = 0;  // NumPy's default (linear) percentile
  double max = 0;
};

// Percentile q in [0, 100] with linear interpolation between order statistics (numpy.percentile
// default). 0 for an empty sample.
double percentile(std::vector<double> values, double q);
Summary summarize(const std::vector<double>& values);

}  // namespace edgeq
