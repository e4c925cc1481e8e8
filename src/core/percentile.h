// Percentiles of a sample: one definition for error summaries, latencies and stage timings.
#pragma once
#include <vector>

namespace edgeq {

// Percentile q in [0, 100] with linear interpolation between order statistics (numpy.percentile
// default). 0 for an empty sample.
double percentile(std::vector<double> values, double q);

}  // namespace edgeq
