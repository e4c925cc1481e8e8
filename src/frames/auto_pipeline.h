// `run --pipeline` as it runs by default: the first frames serially, their stage times measured,
// then the rest of the source either in threads (frames/pipeline.h; with one fewer inference
// thread where inference took every core) or serially, as frames/pipeline_choice.h decides.
// Frames leave in read order either way, and each stage runs the same functions, so the outputs
// do not depend on the choice.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>

#include "frames/frame_stages.h"
#include "frames/frame_timings.h"
#include "frames/pipeline.h"
#include "frames/pipeline_choice.h"

namespace edgeq {

struct AutoPipelineOptions {
  PipelineOptions pipeline;  // the queues, if threads are chosen
  int infer_threads = 1;     // inference's team as asked
  int cores = 1;             // the cores this process may run on
  // Frames run serially first: the first warms up (kernels built, caches filled), the medians
  // of the others' stage times decide.
  size_t measured_frames = 4;
  // Sets inference's threads before the threaded part starts, when the choice takes fewer.
  std::function<void(int threads)> set_infer_threads;
};

struct AutoRun {
  RunStats stats;  // every frame, the measured ones first
  PipelineChoice choice;
};

AutoRun run_auto_pipeline(const FrameStages& stages, const AutoPipelineOptions& options,
                          const std::atomic<bool>* stop);

// The median of each stage over the frames after the first (the first alone if it is the only).
StageCosts median_stage_costs(const std::vector<StageCosts>& frames);

}  // namespace edgeq
