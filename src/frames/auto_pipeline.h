// `run --pipeline` as it runs by default: the first frames serially, their stage times measured
// and a prediction made (frames/pipeline_choice.h), then the rest in windows, each serially or in
// threads (frames/pipeline.h) as frames/mode_policy.h decides from the frames per second each
// mode measures, trying the other mode now and then. A change of mode waits for the frames
// already read to finish (the threads' queues drain in order) before the other mode reads on.
// Frames leave in read order whatever runs, and each stage runs the same functions, so the
// outputs do not depend on the choices.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "frames/frame_stages.h"
#include "frames/frame_timings.h"
#include "frames/mode_policy.h"
#include "frames/pipeline.h"
#include "frames/pipeline_choice.h"

namespace edgeq {

struct AutoPipelineOptions {
  PipelineOptions pipeline;  // the queues, when threads run
  int infer_threads = 1;     // inference's team as asked
  int cores = 1;             // the cores this process may run on
  // Frames run serially first: the first warms up (kernels built, caches filled), the medians
  // of the others' stage times predict.
  size_t measured_frames = 4;
  // A window, after which the mode is decided again: at least this many frames finished and this
  // long (from the first frame the window finished).
  size_t window_frames = 10;
  double window_ms = 3000;
  ModePolicyOptions policy;
  // Sets inference's threads: fewer for the threaded mode where the prediction takes fewer, and
  // infer_threads again when serial runs. Empty: inference keeps infer_threads in both modes (the
  // prediction then does not count on fewer).
  std::function<void(int threads)> set_infer_threads;
  // Milliseconds on a steady clock, read as each frame finishes to time the windows (a seam for
  // tests; empty: std::chrono::steady_clock).
  std::function<double()> clock_ms;
};

struct AutoRun {
  RunStats stats;         // every frame, the measured ones first
  PipelineChoice choice;  // the prediction from the first frames
  // Each change of mode (its frame: the first frame the new mode ran) and each trial kept.
  std::vector<ModeSwitch> switches;
  size_t serial_frames = 0, threaded_frames = 0;  // the first frames count as serial
};

AutoRun run_auto_pipeline(const FrameStages& stages, const AutoPipelineOptions& options,
                          const std::atomic<bool>* stop);

// The median of each stage over the frames after the first (the first alone if it is the only).
StageCosts median_stage_costs(const std::vector<StageCosts>& frames);

}  // namespace edgeq
