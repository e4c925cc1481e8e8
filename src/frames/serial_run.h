// The serial loop: read, infer and post one frame at a time on the calling thread.
#pragma once
#include <atomic>

#include "frames/frame_stages.h"
#include "frames/frame_timings.h"

namespace edgeq {

// Runs every frame through the stages until read returns false or `stop` (may be null) is
// raised; the frame in hand is finished first. Frames are numbered from `first_seq`.
RunStats run_serial(const FrameStages& stages, const std::atomic<bool>* stop, size_t first_seq = 0);

}  // namespace edgeq
