#include "frames/auto_pipeline.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "core/percentile.h"
#include "frames/serial_run.h"

namespace edgeq {

StageCosts median_stage_costs(const std::vector<StageCosts>& frames) {
  if (frames.empty()) return {};
  const size_t from = frames.size() > 1 ? 1 : 0;
  std::vector<double> read, infer, post;
  for (size_t i = from; i < frames.size(); ++i) {
    read.push_back(frames[i].read_ms);
    infer.push_back(frames[i].infer_ms);
    post.push_back(frames[i].post_ms);
  }
  return {percentile(read, 50), percentile(infer, 50), percentile(post, 50)};
}

namespace {

double steady_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Times one mode's windows from the frames it finishes: the first frame finished opens a window
// (what came before it, filling the queues, is left out), and a window closes once it holds
// `frames` intervals between finished frames and `ms` milliseconds.
class WindowTimer {
 public:
  WindowTimer(size_t frames, double ms) : frames_(std::max<size_t>(1, frames)), ms_(ms) {}
  // Starts over; `half`: windows of half the frames and time (a trial's, which costs frames in
  // the slower mode whenever it loses).
  void restart(bool half) {
    intervals_ = 0, open_ = false;
    set_half(half);
  }
  // The next windows full or half, the one open going on.
  void set_half(bool half) {
    now_frames_ = half ? std::max<size_t>(1, frames_ / 2) : frames_;
    now_ms_ = half ? ms_ / 2 : ms_;
  }
  // A frame finished at `now`: the window's time a frame when this closes it.
  std::optional<double> finished(double now) {
    if (!open_) {
      open_ = true, start_ = now, intervals_ = 0;
      return std::nullopt;
    }
    ++intervals_;
    if (intervals_ < now_frames_ || now - start_ < now_ms_) return std::nullopt;
    const double per_frame = (now - start_) / static_cast<double>(intervals_);
    start_ = now, intervals_ = 0;  // the next window starts where this one ended
    return per_frame;
  }

 private:
  const size_t frames_;
  const double ms_;
  size_t now_frames_ = frames_;
  double now_ms_ = ms_;
  bool open_ = false;
  double start_ = 0;
  size_t intervals_ = 0;
};

void add_part(RunStats& total, const RunStats& part) {
  total.timings.append(part.timings);
  total.dropped += part.dropped;
  total.interrupted = part.interrupted;
  for (int q = 0; q < 2; ++q)
    total.queue_high_water[q] = std::max(total.queue_high_water[q], part.queue_high_water[q]);
}

}  // namespace

AutoRun run_auto_pipeline(const FrameStages& stages, const AutoPipelineOptions& o,
                          const std::atomic<bool>* stop) {
  AutoRun out;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<StageCosts> measured;
  size_t seq = 0;
  bool ended = false;
  for (; seq < std::max<size_t>(o.measured_frames, 1) && !(stop && *stop); ++seq) {
    FrameWork w;
    if (!read_step(stages, seq, w)) {
      ended = true;
      break;
    }
    infer_step(stages, w);
    post_step(stages, w);
    out.stats.timings.add(w);
    measured.push_back({w.stage_ms[0], w.stage_ms[1], w.stage_ms[2]});
  }
  out.serial_frames = measured.size();
  if (ended || (stop && *stop)) {
    out.choice.infer_threads = o.infer_threads;
    out.choice.reason = "serial: the source ended (or the run was stopped) after " +
                        std::to_string(measured.size()) + " frame(s), while they were measured";
    out.stats.interrupted = stop && *stop;
  } else {
    out.choice = choose_pipeline(median_stage_costs(measured), o.infer_threads, o.cores,
                                 static_cast<bool>(o.set_infer_threads));
    const int threads_infer = out.choice.threaded ? out.choice.infer_threads : o.infer_threads;
    ModePolicy policy(
        out.choice.serial_ms,
        out.choice.threaded ? std::optional<double>(out.choice.chosen_ms) : std::nullopt, o.policy);
    const std::function<double()> clock = o.clock_ms ? o.clock_ms : steady_ms;
    WindowTimer window(o.window_frames, o.window_ms);
    // The stages as each part runs them: read stops reading once a change of mode is decided
    // (the part then finishes what was read), post times the windows and decides.
    std::atomic<bool> leave{false};
    bool source_ended = false;  // written by the reader, read after the part has ended
    size_t next_seq = seq, finished = seq;
    FrameStages s;
    s.read = [&](FrameWork& w) {
      if (leave) return false;
      if (!stages.read(w)) {
        source_ended = true;
        return false;
      }
      ++next_seq;
      return true;
    };
    s.infer = stages.infer;
    s.post = [&](FrameWork& w) {
      stages.post(w);
      ++finished;
      if (leave) return;  // draining before the change
      if (const std::optional<double> per_frame = window.finished(clock())) {
        leave = policy.window_done(*per_frame, finished);
        window.set_half(policy.trying());  // a trial's second window, or a kept mode's
      }
    };
    int current_threads = o.infer_threads;
    std::vector<size_t> mode_starts;  // the first frame of each part after the first
    for (bool first = true;; first = false) {
      const RunMode mode = policy.running();
      const int want = mode == RunMode::kThreads ? threads_infer : o.infer_threads;
      if (o.set_infer_threads && want != current_threads) {
        o.set_infer_threads(want);
        current_threads = want;
      }
      if (!first) mode_starts.push_back(next_seq);
      leave = false;
      window.restart(policy.trying());
      RunStats part;
      if (mode == RunMode::kThreads) {
        PipelineOptions p = o.pipeline;
        p.first_seq = next_seq;
        part = run_pipelined(s, p, stop);
        out.threaded_frames += part.timings.frames();
      } else {
        part = run_serial(s, stop, next_seq);
        out.serial_frames += part.timings.frames();
      }
      add_part(out.stats, part);
      if (!first && part.timings.frames() == 0) mode_starts.pop_back();  // the source had ended
      if (part.interrupted || source_ended || !leave) break;
    }
    // Each change of mode is dated by the first frame the new mode ran; one decided as the source
    // ended never ran and is left out.
    size_t change = 0;
    for (ModeSwitch sw : policy.switches()) {
      if (sw.kind != ModeSwitch::Kind::kKeep) {
        if (change == mode_starts.size()) break;
        sw.frame = mode_starts[change++];
      }
      out.switches.push_back(std::move(sw));
    }
  }
  out.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace edgeq
