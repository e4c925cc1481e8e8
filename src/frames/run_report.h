// What `edgeq run` reports about a run over frames: the summary printed at the end and the JSON
// of --report (and of the ledger's run row): per-stage P50 / P95 / max, end-to-end P50 / P95,
// throughput, dropped and skipped frames, peak RSS; for the pipeline's auto mode, what it
// predicted, each change of mode and the frames each mode ran.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "frames/frame_timings.h"
#include "frames/mode_policy.h"
#include "frames/pipeline_choice.h"

namespace edgeq {

struct RunReport {
  std::string model, source;
  bool pipeline = false;
  PipelineMode pipeline_mode = PipelineMode::kAuto;  // pipeline only
  std::optional<PipelineChoice> choice;              // what "auto" predicted first
  std::vector<ModeSwitch> switches;                  // "auto": its changes of mode since
  size_t serial_frames = 0, threaded_frames = 0;     // "auto": the frames each mode ran
  size_t queue = 0;                                  // pipeline only
  bool drop_late = false;
  int infer_threads = 0;  // the executor's (after the choice); read and post use one thread each
  size_t detections = 0;
  int skipped = 0;  // unreadable images / undecodable video frames
  // A video's frame count as its header declares it (0: unknown), and the declared frames it
  // never gave (cut short, or corrupt at the end).
  int64_t declared_frames = 0, missing_frames = 0;
  size_t peak_rss_bytes = 0;
  RunStats stats;
};

nlohmann::json run_report_json(const RunReport& r);
// A stage table, then one closing line with the totals (demo.sh shows that last line).
void print_run_summary(const RunReport& r, std::ostream& os);

}  // namespace edgeq
