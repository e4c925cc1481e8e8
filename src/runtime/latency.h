// Latency of one executor: untimed warm-up runs, then timed runs (min / median / p95 / mean), as
// `edgeq bench` and `edgeq study` measure it. Inputs are deterministic uniform [0, 1) tensors.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "runtime/executor.h"

namespace edgeq {

struct LatencyResult {
  double prepare_ms = 0;  // planning (Executor::prepare)
  double min_ms = 0, median_ms = 0, p95_ms = 0, mean_ms = 0;
  std::vector<double> samples_ms;
  // A raw-head model (ir/raw_head.h): the host decode's median share of a run (included in the
  // times above) and the median of the runs without it (the graph alone); 0 for other models.
  double host_decode_median_ms = 0, graph_median_ms = 0;
};

// One tensor per graph input: float32 inputs (and inputs that carry codes, which the executor
// takes as float: runtime/float_io.h) uniform in [0, 1) from a fixed seed, others zero.
std::map<std::string, Tensor> random_inputs(const Graph& g);

// Plans `ex` (timed), runs it `warmup` times, then `runs` timed runs on `inputs`; with warm-up
// runs, a profiling executor's step times are those of the timed runs only. Stops before the next
// run on a front end's SIGINT / SIGTERM (edgeq::Cancelled, core/interrupt.h).
LatencyResult measure_latency(Executor& ex, const std::map<std::string, Tensor>& inputs, int runs,
                              int warmup);

}  // namespace edgeq
