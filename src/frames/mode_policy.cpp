#include "frames/mode_policy.h"

#include <algorithm>
#include <cstdio>

namespace edgeq {
namespace {

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f ms", v);
  return b;
}

// "serial's", "threads'".
std::string owned(RunMode m) {
  return m == RunMode::kSerial ? "serial's" : "threads'";
}

RunMode other_mode(RunMode m) {
  return m == RunMode::kSerial ? RunMode::kThreads : RunMode::kSerial;
}

int at(RunMode m) {
  return static_cast<int>(m);
}

}  // namespace

const char* run_mode_name(RunMode m) {
  return m == RunMode::kSerial ? "serial" : "threads";
}

const char* switch_kind_name(ModeSwitch::Kind k) {
  switch (k) {
    case ModeSwitch::Kind::kTry:
      return "try";
    case ModeSwitch::Kind::kKeep:
      return "keep";
    case ModeSwitch::Kind::kBack:
      return "back";
  }
  return "?";
}

ModePolicy::ModePolicy(double serial_ms, std::optional<double> predicted_threads_ms,
                       ModePolicyOptions options)
    : opt_(options), predicted_threads_ms_(predicted_threads_ms) {
  opt_.first_trial_after = std::max<size_t>(1, opt_.first_trial_after);
  opt_.most_windows_between_trials =
      std::max(opt_.first_trial_after, opt_.most_windows_between_trials);
  opt_.recent_windows = std::max<size_t>(1, opt_.recent_windows);
  recent_[at(RunMode::kSerial)].push_back(serial_ms);
  gap_ = windows_to_trial_ = opt_.first_trial_after;
  if (predicted_threads_ms_) running_ = RunMode::kThreads;  // the first window is their trial
}

void ModePolicy::record(ModeSwitch::Kind kind, size_t frame, RunMode to, double measured,
                        std::optional<double> compared, std::string reason) {
  const RunMode from = kind == ModeSwitch::Kind::kKeep ? kept_ : running_;
  switches_.push_back({kind, frame, from, to, measured, compared, std::move(reason)});
}

std::optional<double> ModePolicy::time_of(RunMode m) const {
  std::vector<double> v = recent_[at(m)];
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void ModePolicy::note(RunMode m, double ms_per_frame) {
  std::vector<double>& recent = recent_[at(m)];
  recent.push_back(ms_per_frame);
  if (recent.size() > opt_.recent_windows) recent.erase(recent.begin());
}

bool ModePolicy::window_done(double ms_per_frame, size_t frame) {
  const RunMode ran = running_, other = other_mode(ran);
  const std::string measured =
      std::string(run_mode_name(ran)) + " measured " + ms(ms_per_frame) + " a frame";
  if (ran != kept_) {  // a trial, against the kept mode's time before it
    const double kept_ms = *time_of(other);
    note(ran, ms_per_frame);
    std::string against = " against " + owned(other) + " " + ms(kept_ms);
    if (ran == RunMode::kThreads && predicted_threads_ms_) {
      against += " (predicted " + ms(*predicted_threads_ms_) + ")";
      predicted_threads_ms_.reset();  // the prediction is judged once
    }
    if (ms_per_frame <= (1 - opt_.margin) * kept_ms) {
      if (!confirming_) {  // one window won: the next one decides
        confirming_ = true;
        return false;
      }
      confirming_ = false;
      record(ModeSwitch::Kind::kKeep, frame, ran, ms_per_frame, kept_ms,
             std::string(run_mode_name(ran)) + " kept: two windows faster, the last " + measured +
                 against);
      kept_ = ran;
      std::vector<double>& mine = recent_[at(ran)];  // its time from now: this trial's windows
      if (mine.size() > 2) mine.erase(mine.begin(), mine.end() - 2);
      gap_ = windows_to_trial_ = opt_.first_trial_after;
      return false;
    }
    confirming_ = false;
    gap_ = std::min(2 * gap_, opt_.most_windows_between_trials);
    windows_to_trial_ = gap_;
    record(ModeSwitch::Kind::kBack, frame, other, ms_per_frame, kept_ms,
           std::string("back to ") + run_mode_name(other) + ": " + measured + against +
               "; next trial in " + std::to_string(gap_) + " windows");
    running_ = other;
    return true;
  }
  note(ran, ms_per_frame);
  // The kept mode now slower than the other's last measurement: what was measured before no
  // longer holds (other work started or stopped), so the other mode is tried at once.
  const std::optional<double> other_ms =
      recent_[at(other)].empty() ? std::nullopt : std::optional<double>(recent_[at(other)].back());
  const double kept_ms = *time_of(ran);
  const bool overtaken = other_ms && kept_ms > (1 + opt_.margin) * *other_ms;
  if (windows_to_trial_ > 0) --windows_to_trial_;
  if (!overtaken && windows_to_trial_ > 0) return false;
  record(ModeSwitch::Kind::kTry, frame, other, kept_ms, other_ms,
         "trying " + std::string(run_mode_name(other)) + ": " + run_mode_name(ran) + " at " +
             ms(kept_ms) + " a frame (median of its last windows)" +
             (other_ms
                  ? (overtaken ? ", slower than " : ", ") + owned(other) + " last " + ms(*other_ms)
                  : std::string(", ") + run_mode_name(other) + " not measured yet"));
  running_ = other;
  return true;
}

}  // namespace edgeq
