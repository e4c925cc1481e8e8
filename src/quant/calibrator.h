// Calibrator: runs a model in FP32 and streams every float activation (graph inputs included)
// into Stats through one executor hook, so no intermediate tensor outlives its step.
#pragma once
#include <map>
#include <string>

#include "ir/graph.h"
#include "quant/stats.h"
#include "runtime/executor.h"

namespace edgeq {

class Calibrator {
 public:
  // `model_sha256` and `preprocessing` are recorded in the stats (see Stats).
  Calibrator(Graph graph, std::string model_sha256, std::string preprocessing,
             ExecutorOptions opt = {});
  // One forward pass; counts one image per call.
  void add(const std::map<std::string, Tensor>& inputs);
  const Stats& stats() const { return stats_; }
  Stats take() { return std::move(stats_); }

 private:
  Stats stats_;
  Executor executor_;
};

}  // namespace edgeq
