#include "frames/frame_timings.h"

#include <algorithm>

#include "eval/summary.h"

namespace edgeq {

LatencySummary summarize_latency(const std::vector<double>& ms) {
  LatencySummary s;
  s.count = ms.size();
  if (ms.empty()) return s;
  s.p50 = percentile(ms, 50);
  s.p95 = percentile(ms, 95);
  s.max = *std::max_element(ms.begin(), ms.end());
  return s;
}

void FrameTimings::add(const FrameWork& finished) {
  for (int i = 0; i < kStageCount; ++i) stage_ms_[i].push_back(finished.stage_ms[i]);
  end_to_end_ms_.push_back(finished.end_to_end_ms);
}

void FrameTimings::append(const FrameTimings& later) {
  for (int i = 0; i < kStageCount; ++i)
    stage_ms_[i].insert(stage_ms_[i].end(), later.stage_ms_[i].begin(), later.stage_ms_[i].end());
  end_to_end_ms_.insert(end_to_end_ms_.end(), later.end_to_end_ms_.begin(),
                        later.end_to_end_ms_.end());
}

LatencySummary FrameTimings::stage(Stage s) const {
  return summarize_latency(stage_ms_[static_cast<int>(s)]);
}

LatencySummary FrameTimings::end_to_end() const {
  return summarize_latency(end_to_end_ms_);
}

double RunStats::frames_per_s() const {
  return wall_s > 0 ? static_cast<double>(timings.frames()) / wall_s : 0;
}

}  // namespace edgeq
