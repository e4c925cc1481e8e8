// Progress and cancellation of long calls (calibration, weight repair, the mixed-precision
// search): the library reports each step through a callback, and the callback's answer can stop
// the call. A front end draws its progress bar from the events; Ctrl-C (or a Python
// KeyboardInterrupt) makes the callback return false.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "edgeq/error.h"

namespace edgeq {

struct ProgressEvent {
  enum class Kind {
    kStep,     // `done` items of `task` of `total` (0 when the task starts)
    kMessage,  // a line of news from `task` (`message`), e.g. one evaluation of the search
    kWarning,  // something skipped or doubtful (`message`), e.g. an unreadable image
  };
  Kind kind = Kind::kStep;
  std::string task;  // "calibrate", "weight repair", "equalized value statistics", "auto"
  size_t done = 0, total = 0;
  std::string message;
};

// Called on the caller's thread or a worker's, one call at a time. Returning false cancels: the
// call stops at the next image or evaluation and throws edgeq::Cancelled.
using ProgressCallback = std::function<bool(const ProgressEvent&)>;

}  // namespace edgeq
