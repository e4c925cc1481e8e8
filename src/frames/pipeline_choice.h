// Whether overlapping the stages in threads pays, decided from their measured times (what
// `run --pipeline` does after measuring its first frames serially). The threaded pipeline runs
// read and post on threads of their own beside inference's team: where inference already takes
// every core they compete with it and the run gets slower, unless inference gives up a thread.
// Predicted per-frame times, in milliseconds:
//   serial:                 read + infer + post
//   threads, a core spare:  max(infer, read, post, (read + post) / spare cores)
//   one fewer inference thread (inference took every core): max(infer x T / (T - 1), read + post),
//                           infer scaled as if it used its threads perfectly (it rarely does, so
//                           the prediction is on the slow side)
//   inference's threads kept (it took every core and its threads may not be lowered): read and
//                           post share its C cores, max(infer + (read + post) / C, read + post)
// The threaded choice is taken when it predicts at least 5 % less than serial; else serial.
// A prediction only: what other work on the machine does to each is measured while the run goes
// on (frames/mode_policy.h).
#pragma once
#include <string>

namespace edgeq {

struct StageCosts {
  double read_ms = 0, infer_ms = 0, post_ms = 0;  // one frame's, at the inference threads asked
};

struct PipelineChoice {
  bool threaded = false;
  int infer_threads = 1;  // what inference runs with
  double serial_ms = 0;   // predicted per frame, serially
  double chosen_ms = 0;   // predicted per frame, as chosen
  std::string reason;     // one line: what was measured and why this was chosen
};

// `infer_threads`: inference's team as asked; `cores`: the cores this process may run on;
// `may_lower_threads`: whether the threaded mode may run inference on fewer threads.
PipelineChoice choose_pipeline(const StageCosts& measured, int infer_threads, int cores,
                               bool may_lower_threads = true);

}  // namespace edgeq
