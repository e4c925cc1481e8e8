// Calibrator: runs a model in FP32 and streams float activations (graph inputs included) into
// Stats through executor stream observers (each value read once: while a SiLU pass or a Concat
// reads it, else right after its step), so no intermediate tensor outlives its step. Large values
// keep a sample and their tails, binned after the forward pass, values in parallel.
//
// Values that only move other values keep their statistics without being read: the output of
// Reshape / Flatten / Squeeze / Unsqueeze / Identity / Transpose holds the same values as its
// input, and a Concat output holds the union of its inputs, so their histograms are the input's
// (or the inputs' merged, which is exact; see Histogram) and are filled in by stats() / take().
// Sigmoid(t) and Mul(t, Sigmoid(t)) (SiLU) are functions of t: their statistics come with t's,
// which the executor's SiLU pass streams to the calibrator as it reads t (StreamObserver): min /
// max from t's scan, since sigmoid rises and SiLU falls then rises; bins from the function applied
// to t's sample and tails (BatchSample). The Sigmoid output is never materialized.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "calib/stats.h"
#include "ir/graph.h"
#include "runtime/executor.h"

namespace edgeq {

struct CalibratorOptions {
  ExecutorOptions executor;
  // Histogram sampling (Histogram::add's max_stride); 1 bins every value. min, max and counts
  // always cover every value.
  int histogram_stride = 64;
  // Derive pass-through, Sigmoid and SiLU values from their inputs (see above) instead of
  // reading them.
  bool derive = true;
};

class Calibrator {
 public:
  // `model_sha256` and `preprocessing` are recorded in the stats (see Stats).
  Calibrator(Graph graph, std::string model_sha256, std::string preprocessing,
             CalibratorOptions opt = {});
  ~Calibrator();
  // One forward pass; counts one image per call. `alongside`, when given, runs on one thread
  // while the others bin this pass's sampled statistics: calibrate reads its next image there,
  // so that reading never preempts a thread of the forward pass (on a machine whose cores the
  // pass uses, that stalls the pass's other threads too). It must not throw.
  void add(const std::map<std::string, Tensor>& inputs,
           const std::function<void()>& alongside = nullptr);
  // Statistics so far, derived values filled in.
  Stats stats() const;
  // The statistics, moved out: the calibrator takes no more images afterwards.
  Stats take();
  // Values read (through hooks or streams) / derived from others (execution order).
  const std::vector<std::string>& observed() const { return observed_; }
  const std::vector<std::string>& derived() const { return derived_; }

 private:
  struct SiluTap {
    std::string sigmoid, silu;  // outputs of Sigmoid(t) and Mul(t, Sigmoid(t)); silu may be ""
  };
  class ValueStream;
  // Sigmoid(t) and SiLU(t) from every value of t / from t's scan and sample.
  void derive_silu_whole(const SiluTap& tap, const float* t, int64_t n);
  void derive_silu_sampled(const SiluTap& tap, int64_t n, const BatchScan& scan,
                           const BatchSample& sample);
  void fill_derived(Stats& s) const;

  Stats stats_;  // observed values only
  Executor executor_;
  std::vector<std::string> observed_, derived_;
  std::map<std::string, std::vector<std::string>> sources_;  // pass-through value -> its inputs
  std::map<std::string, SiluTap> taps_;                      // t -> values computed from it
  std::vector<std::unique_ptr<ValueStream>> streams_;
  std::vector<ValueStream*> pending_;  // sampled batches of this forward pass, to bin
  int threads_ = 1;
  bool taken_ = false;
};

}  // namespace edgeq
