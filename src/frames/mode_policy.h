// When `run --pipeline`'s auto mode changes between serial and threads while it runs: the
// prediction from the first frames (frames/pipeline_choice.h) cannot see what other work on the
// machine does to each mode, so the run measures instead. It runs in windows and keeps the mode
// measured faster (frames per window wall time, frame after frame), trying the other one now and
// then:
//   - serial is the mode kept at first; where the prediction chose threads, the first window runs
//     threads as a trial against the serial time measured on the first frames;
//   - after a window of the kept mode, the other mode runs the next window when a trial is due;
//     the first trial is due `first_trial_after` windows in;
//   - a mode's time is the median of its last `recent_windows` windows (one window alone is at
//     the mercy of a noisy host: on a 2-core VM whose speed swung 30% in seconds, trials judged on
//     single windows kept the slower mode half the time);
//   - a trial (its windows half as long: run_auto_pipeline) is kept when two windows in a row
//     each measure at least `margin` faster than the kept mode's time, and trials come again
//     after `first_trial_after` windows; a trial window that does not hands back to the kept
//     mode, and the windows before the next trial double (at most
//     `most_windows_between_trials`), so a mode that keeps losing costs less and less.
// A pure decision over measured numbers: no clock, no threads (tests feed it numbers).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace edgeq {

enum class RunMode { kSerial = 0, kThreads = 1 };
const char* run_mode_name(RunMode m);  // "serial", "threads"

struct ModePolicyOptions {
  double margin = 0.03;  // a trial must measure this fraction faster to be kept
  size_t first_trial_after = 2;
  size_t most_windows_between_trials = 32;
  size_t recent_windows = 3;  // a mode's time: the median of its last this many windows
};

// One change of mode (try: a trial of the other mode starts; back: a trial lost, the kept mode
// runs again), or a trial kept (keep: the mode kept changes, the mode running does not).
struct ModeSwitch {
  enum class Kind { kTry, kKeep, kBack };
  Kind kind = Kind::kTry;
  size_t frame = 0;  // frames finished when it was decided (the next window's first frame)
  RunMode from = RunMode::kSerial, to = RunMode::kSerial;  // keep: the kept mode before, after
  double measured_ms = 0;                                  // per frame: the window just measured
  std::optional<double> compared_ms;  // per frame: the other mode's last measurement
  std::string reason;                 // one line
};
const char* switch_kind_name(ModeSwitch::Kind k);  // "try", "keep", "back"

class ModePolicy {
 public:
  // `serial_ms`: serial's time a frame measured on the first frames; `predicted_threads_ms`: the
  // threads' predicted time when the prediction chose them (the first window is their trial).
  ModePolicy(double serial_ms, std::optional<double> predicted_threads_ms,
             ModePolicyOptions options = {});

  RunMode running() const { return running_; }       // the mode the next window runs
  bool trying() const { return running_ != kept_; }  // the next window is a trial's
  // A window of running() ended with `frame` frames finished, at `ms_per_frame`: decides the
  // next window's mode (a change is appended to switches()). True when the mode changes.
  bool window_done(double ms_per_frame, size_t frame);
  const std::vector<ModeSwitch>& switches() const { return switches_; }

 private:
  void record(ModeSwitch::Kind kind, size_t frame, RunMode to, double measured,
              std::optional<double> compared, std::string reason);

  void note(RunMode m, double ms_per_frame);  // a window of m: one of its recent ones
  // The mode's time: the median of its recent windows (none yet: nullopt).
  std::optional<double> time_of(RunMode m) const;

  ModePolicyOptions opt_;
  RunMode kept_ = RunMode::kSerial, running_ = RunMode::kSerial;
  std::vector<double> recent_[2];  // each mode's last windows, oldest first
  bool confirming_ = false;        // a trial's first window won: its second decides
  std::optional<double> predicted_threads_ms_;
  size_t windows_to_trial_ = 0, gap_ = 0;
  std::vector<ModeSwitch> switches_;
};

}  // namespace edgeq
