#include "frames/frame_stages.h"

namespace edgeq {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::kRead:
      return "read";
    case Stage::kInfer:
      return "infer";
    case Stage::kPost:
      return "post";
  }
  return "?";
}

bool read_step(const FrameStages& s, size_t seq, FrameWork& w) {
  w.seq = seq;
  w.started = Clock::now();
  const bool got = s.read(w);
  w.stage_ms[static_cast<int>(Stage::kRead)] = ms_between(w.started, Clock::now());
  return got;
}

void infer_step(const FrameStages& s, FrameWork& w) {
  const auto t = Clock::now();
  s.infer(w);
  w.stage_ms[static_cast<int>(Stage::kInfer)] = ms_between(t, Clock::now());
}

void post_step(const FrameStages& s, FrameWork& w) {
  const auto t = Clock::now();
  s.post(w);
  const auto end = Clock::now();
  w.stage_ms[static_cast<int>(Stage::kPost)] = ms_between(t, end);
  w.end_to_end_ms = ms_between(w.started, end);
}

}  // namespace edgeq
