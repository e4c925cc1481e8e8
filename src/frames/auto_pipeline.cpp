#include "frames/auto_pipeline.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/percentile.h"
#include "frames/serial_run.h"

namespace edgeq {

StageCosts median_stage_costs(const std::vector<StageCosts>& frames) {
  if (frames.empty()) return {};
  const size_t from = frames.size() > 1 ? 1 : 0;
  std::vector<double> read, infer, post;
  for (size_t i = from; i < frames.size(); ++i) {
    read.push_back(frames[i].read_ms);
    infer.push_back(frames[i].infer_ms);
    post.push_back(frames[i].post_ms);
  }
  return {percentile(read, 50), percentile(infer, 50), percentile(post, 50)};
}

AutoRun run_auto_pipeline(const FrameStages& stages, const AutoPipelineOptions& o,
                          const std::atomic<bool>* stop) {
  AutoRun out;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<StageCosts> measured;
  size_t seq = 0;
  bool ended = false;
  for (; seq < std::max<size_t>(o.measured_frames, 1) && !(stop && *stop); ++seq) {
    FrameWork w;
    if (!read_step(stages, seq, w)) {
      ended = true;
      break;
    }
    infer_step(stages, w);
    post_step(stages, w);
    out.stats.timings.add(w);
    measured.push_back({w.stage_ms[0], w.stage_ms[1], w.stage_ms[2]});
  }
  RunStats rest;
  if (ended || (stop && *stop)) {
    out.choice.infer_threads = o.infer_threads;
    out.choice.reason = "serial: the source ended (or the run was stopped) after " +
                        std::to_string(measured.size()) + " frame(s), while they were measured";
    rest.interrupted = stop && *stop;
  } else {
    out.choice = choose_pipeline(median_stage_costs(measured), o.infer_threads, o.cores);
    if (out.choice.threaded) {
      if (out.choice.infer_threads != o.infer_threads && o.set_infer_threads)
        o.set_infer_threads(out.choice.infer_threads);
      PipelineOptions p = o.pipeline;
      p.first_seq = seq;
      rest = run_pipelined(stages, p, stop);
    } else {
      rest = run_serial(stages, stop, seq);
    }
  }
  out.stats.timings.append(rest.timings);
  out.stats.dropped = rest.dropped;
  out.stats.interrupted = rest.interrupted;
  out.stats.queue_high_water[0] = rest.queue_high_water[0];
  out.stats.queue_high_water[1] = rest.queue_high_water[1];
  out.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace edgeq
