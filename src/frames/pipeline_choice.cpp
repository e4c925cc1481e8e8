#include "frames/pipeline_choice.h"

#include <algorithm>
#include <cstdio>

namespace edgeq {
namespace {

constexpr double kGainNeeded = 0.95;  // threads must predict at most this times the serial time

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f ms", v);
  return b;
}

}  // namespace

PipelineChoice choose_pipeline(const StageCosts& m, int infer_threads, int cores,
                               bool may_lower_threads) {
  const int t = std::max(1, infer_threads);
  const int spare = cores - t;
  const double side = m.read_ms + m.post_ms;
  PipelineChoice c;
  c.infer_threads = t;
  c.serial_ms = c.chosen_ms = side + m.infer_ms;
  const std::string measured = "read " + ms(m.read_ms) + ", infer " + ms(m.infer_ms) + ", post " +
                               ms(m.post_ms) + " a frame";
  auto take_threads = [&](int threads, double predicted) {
    c.threaded = true;
    c.infer_threads = threads;
    c.chosen_ms = predicted;
  };
  if (spare >= 1) {
    const double predicted =
        std::max({m.infer_ms, m.read_ms, m.post_ms, side / static_cast<double>(spare)});
    if (predicted <= kGainNeeded * c.serial_ms) {
      take_threads(t, predicted);
      c.reason = "threads: " + measured + "; " + std::to_string(spare) + " core" +
                 (spare == 1 ? "" : "s") + " beside inference's " + std::to_string(t) +
                 " take read and post (predicted " + ms(predicted) + " a frame, serially " +
                 ms(c.serial_ms) + ")";
      return c;
    }
    c.reason = "serial: " + measured + "; overlapping them would save under 5 %";
    return c;
  }
  if (!may_lower_threads && cores > 1) {
    const double predicted = std::max(m.infer_ms + side / cores, side);
    if (predicted <= kGainNeeded * c.serial_ms) {
      take_threads(t, predicted);
      c.reason = "threads: " + measured + "; read and post share inference's " +
                 std::to_string(cores) + " cores (predicted " + ms(predicted) +
                 " a frame, serially " + ms(c.serial_ms) + ")";
      return c;
    }
    c.reason = "serial: " + measured + "; inference takes all " + std::to_string(cores) +
               " cores, and read and post beside it would save under 5 % (predicted " +
               ms(predicted) + " a frame)";
    return c;
  }
  const int fewer = std::min(t, cores) - 1;
  if (fewer >= 1) {
    const double slower = m.infer_ms * static_cast<double>(std::min(t, cores)) / fewer;
    const double predicted = std::max(slower, side);
    if (predicted <= kGainNeeded * c.serial_ms) {
      take_threads(fewer, predicted);
      c.reason = "threads: " + measured + "; inference on " + std::to_string(fewer) + " of " +
                 std::to_string(cores) + " cores, read and post on the other (predicted " +
                 ms(predicted) + " a frame, serially " + ms(c.serial_ms) + ")";
      return c;
    }
    c.reason = "serial: " + measured + "; inference takes all " + std::to_string(cores) +
               " cores, and on " + std::to_string(fewer) + " it would cost more (about " +
               ms(slower) + ") than overlapping read and post saves";
    return c;
  }
  c.reason = "serial: " + measured + "; one core, nothing to overlap on";
  return c;
}

}  // namespace edgeq
