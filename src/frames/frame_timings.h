// What a run over frames measured: per-stage and end-to-end latency samples of every finished
// frame, summarized as P50 / P95 / max (linear percentiles, numpy's default), frames dropped,
// wall time and throughput.
#pragma once
#include <cstddef>
#include <vector>

#include "frames/frame_stages.h"

namespace edgeq {

struct LatencySummary {
  size_t count = 0;
  double p50 = 0, p95 = 0, max = 0;  // milliseconds; 0 for no sample
};

LatencySummary summarize_latency(const std::vector<double>& ms);

class FrameTimings {
 public:
  void add(const FrameWork& finished);
  void append(const FrameTimings& later);  // frames finished after these
  size_t frames() const { return end_to_end_ms_.size(); }
  LatencySummary stage(Stage s) const;
  LatencySummary end_to_end() const;

 private:
  std::vector<double> stage_ms_[kStageCount];
  std::vector<double> end_to_end_ms_;
};

struct RunStats {
  FrameTimings timings;  // finished frames, in order
  size_t dropped = 0;    // frames read but never inferred (--drop-late)
  double wall_s = 0;     // from the first read to the last post
  bool interrupted = false;
  size_t queue_high_water[2] = {0, 0};  // read -> infer, infer -> post (pipeline only)
  double frames_per_s() const;
};

}  // namespace edgeq
