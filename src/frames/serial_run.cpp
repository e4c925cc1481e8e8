#include "frames/serial_run.h"

#include <chrono>

namespace edgeq {

RunStats run_serial(const FrameStages& stages, const std::atomic<bool>* stop, size_t first_seq) {
  RunStats r;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t seq = first_seq; !(stop && *stop); ++seq) {
    FrameWork w;
    if (!read_step(stages, seq, w)) break;
    infer_step(stages, w);
    post_step(stages, w);
    r.timings.add(w);
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.interrupted = stop && *stop;
  return r;
}

}  // namespace edgeq
