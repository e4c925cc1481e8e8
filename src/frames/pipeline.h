// The threaded pipeline: read (+ letterbox), infer and post each on their own thread, joined by
// bounded queues. Frames leave in the order they were read; a full queue makes the stage before
// it wait (back-pressure), so memory stays bounded by the queue sizes whatever the frame count.
//
// Threads: the reader and the inferer are new threads, post runs on the calling thread. The
// inference stage gets the executor's threads (its OpenMP team); read and post are one thread
// each.
#pragma once
#include <atomic>
#include <cstddef>

#include "frames/frame_stages.h"
#include "frames/frame_timings.h"

namespace edgeq {

struct PipelineOptions {
  size_t queue = 4;  // frames each queue holds
  // Live sources: when inference falls behind and its queue is full, drop the oldest waiting
  // frame (counted in RunStats::dropped) instead of making the reader wait.
  bool drop_late = false;
  size_t first_seq = 0;  // the number of the first frame read (frames run before this call)
};

// Runs until read returns false or `stop` (may be null) is raised: the reader stops, frames
// already read are finished. A stage that throws stops every stage; the first error is rethrown
// here after all threads have ended.
RunStats run_pipelined(const FrameStages& stages, const PipelineOptions& opt,
                       const std::atomic<bool>* stop);

}  // namespace edgeq
