#include "frames/run_report.h"

#include <cstdio>

#include "core/progress.h"

namespace edgeq {
namespace {

nlohmann::json latency_json(const LatencySummary& s) {
  return {{"p50", s.p50}, {"p95", s.p95}, {"max", s.max}};
}

const Stage kStages[] = {Stage::kRead, Stage::kInfer, Stage::kPost};

nlohmann::json switch_json(const ModeSwitch& s) {
  return {{"kind", switch_kind_name(s.kind)},
          {"frame", s.frame},
          {"from", run_mode_name(s.from)},
          {"to", run_mode_name(s.to)},
          {"measured_ms", s.measured_ms},
          {"compared_ms", s.compared_ms ? nlohmann::json(*s.compared_ms) : nlohmann::json()},
          {"reason", s.reason}};
}

// The changes of mode the summary lists; the JSON report has them all.
constexpr size_t kSwitchLines = 6;

}  // namespace

nlohmann::json run_report_json(const RunReport& r) {
  const RunStats& s = r.stats;
  nlohmann::json stages = nlohmann::json::object();
  for (Stage st : kStages) stages[stage_name(st)] = latency_json(s.timings.stage(st));
  nlohmann::json j = {{"model", r.model},
                      {"source", r.source},
                      {"mode", r.pipeline ? "pipeline" : "serial"},
                      {"infer_threads", r.infer_threads},
                      {"frames", s.timings.frames()},
                      {"detections", r.detections},
                      {"skipped", r.skipped},
                      {"declared_frames", r.declared_frames > 0 ? nlohmann::json(r.declared_frames)
                                                                : nlohmann::json()},
                      {"missing_frames", r.missing_frames},
                      {"dropped", s.dropped},
                      {"interrupted", s.interrupted},
                      {"wall_s", s.wall_s},
                      {"frames_per_s", s.frames_per_s()},
                      {"stages", stages},
                      {"end_to_end_ms", latency_json(s.timings.end_to_end())},
                      {"peak_rss_bytes", r.peak_rss_bytes}};
  if (r.pipeline) {
    j["pipeline_mode"] = std::string(name(r.pipeline_mode));
    if (r.choice)
      j["pipeline_choice"] = {{"ran", r.choice->threaded ? "threads" : "serial"},
                              {"infer_threads", r.choice->infer_threads},
                              {"predicted_serial_ms", r.choice->serial_ms},
                              {"predicted_ms", r.choice->chosen_ms},
                              {"reason", r.choice->reason}};
    if (r.choice) {
      nlohmann::json switches = nlohmann::json::array();
      for (const ModeSwitch& sw : r.switches) switches.push_back(switch_json(sw));
      j["pipeline_switches"] = std::move(switches);
      j["pipeline_frames"] = {{"serial", r.serial_frames}, {"threads", r.threaded_frames}};
    }
    j["queue"] = r.queue;
    j["drop_late"] = r.drop_late;
    j["queue_high_water"] = {s.queue_high_water[0], s.queue_high_water[1]};
  }
  return j;
}

void print_run_summary(const RunReport& r, std::ostream& os) {
  const RunStats& s = r.stats;
  char line[160];
  std::snprintf(line, sizeof line, "%-12s %9s %9s %9s\n", "stage", "p50 ms", "p95 ms", "max ms");
  os << line;
  auto row = [&](const char* name, const LatencySummary& l) {
    std::snprintf(line, sizeof line, "%-12s %9.2f %9.2f %9.2f\n", name, l.p50, l.p95, l.max);
    os << line;
  };
  for (Stage st : kStages) row(stage_name(st), s.timings.stage(st));
  row("end-to-end", s.timings.end_to_end());
  if (r.choice) {
    os << "pipeline " << r.choice->reason << "\n";
    for (size_t i = 0; i < r.switches.size() && i < kSwitchLines; ++i)
      os << "  frame " << r.switches[i].frame << ": " << r.switches[i].reason << "\n";
    if (r.switches.size() > kSwitchLines)
      os << "  and " << r.switches.size() - kSwitchLines
         << " more changes of mode (the JSON report lists them all)\n";
    os << "pipeline frames: " << r.serial_frames << " serially, " << r.threaded_frames
       << " in threads\n";
  }
  if (s.interrupted) os << "interrupted: stopped reading; the frames already read were finished\n";
  std::snprintf(line, sizeof line, "%.1f frames/s", s.frames_per_s());
  os << s.timings.frames() << " frame(s), " << r.detections << " detection(s) in "
     << format_duration(s.wall_s) << " (" << line << ", "
     << (!r.pipeline ? std::string("serial")
         : r.choice && r.threaded_frames == 0
             ? "pipeline " + std::string(name(r.pipeline_mode)) + ": serial"
             : "pipeline " + std::string(name(r.pipeline_mode)) + ", queue " +
                   std::to_string(r.queue))
     << ", inference " << r.infer_threads << " thread" << (r.infer_threads == 1 ? "" : "s")
     << "); dropped " << s.dropped << ", skipped " << r.skipped;
  if (r.missing_frames > 0)
    os << ", missing " << r.missing_frames << " of the " << r.declared_frames
       << " frames the video declares (cut short or corrupt at the end)";
  os << ", peak RSS " << r.peak_rss_bytes / 1048576 << " MiB\n";
}

}  // namespace edgeq
