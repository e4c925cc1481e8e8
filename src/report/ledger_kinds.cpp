#include "report/ledger_kinds.h"

#include "core/error.h"

namespace edgeq {

const std::vector<LedgerKind>& ledger_kinds() {
  static const std::vector<LedgerKind> kinds = {
      {"calibrate",
       "calibrate_runs",
       {{"images", "/images"},
        {"unreadable", "/unreadable"},
        {"ms_per_image", "/ms_per_image"},
        {"seconds", "/seconds"},
        {"values", "/values"},
        {"peak_rss_bytes", "/peak_rss_bytes"}}},
      {"quantize",
       "quantize_runs",
       {{"activations_8bit", "/activations_8bit"},
        {"activations_16bit", "/activations_16bit"},
        {"activations_float", "/activations_float"},
        {"weights_per_channel", "/weights_per_channel"},
        {"decode_tail_values", "/decode_tail_values"},
        {"decode_tail_8bit", "/decode_tail_8bit"}}},
      {"compare",
       "compare_runs",
       {{"images", "/images"},
        {"match_rate", "/detections/match_rate"},
        {"matched", "/detections/matched"},
        {"extra", "/detections/extra"},
        {"missing", "/detections/missing"},
        {"box_px_mean", "/detections/box_px/mean"},
        {"box_px_p95", "/detections/box_px/p95"},
        {"kpt_px_mean", "/detections/keypoint_px/mean"},
        {"kpt_px_p95", "/detections/keypoint_px/p95"},
        {"score_shift_mean", "/detections/score_shift/mean"},
        {"box_map50_95", "/labels/test/box/map50_95"},
        {"pose_map50_95", "/labels/test/pose/map50_95"},
        {"ref_box_map50_95", "/labels/ref/box/map50_95"},
        {"ref_pose_map50_95", "/labels/ref/pose/map50_95"}}},
      {"bench",
       "bench_runs",
       {{"latency_ms", "/median_ms"},
        {"min_ms", "/min_ms"},
        {"p95_ms", "/p95_ms"},
        {"throughput_ms_per_run", "/throughput_ms_per_run"},
        {"peak_rss_bytes", "/peak_rss_bytes"},
        {"arena_bytes", "/arena_bytes"},
        {"weight_bytes", "/weight_bytes"}}},
      {"run",
       "run_runs",
       {{"frames", "/frames"},
        {"detections", "/detections"},
        {"frames_per_s", "/frames_per_s"},
        {"latency_ms", "/end_to_end_ms/p50"},
        {"latency_p95_ms", "/end_to_end_ms/p95"},
        {"infer_p50_ms", "/stages/infer/p50"},
        {"infer_p95_ms", "/stages/infer/p95"},
        {"dropped", "/dropped"},
        {"skipped", "/skipped"},
        {"peak_rss_bytes", "/peak_rss_bytes"}}},
      {"study",
       "study_runs",
       {{"runs", "/runs"},
        {"steps", "/steps"},
        {"cached", "/cached"},
        {"seconds", "/seconds"},
        {"match_rate", "/worst/match_rate"},
        {"box_px_mean", "/worst/box_px_mean"},
        {"kpt_px_mean", "/worst/kpt_px_mean"},
        {"pose_map50_95", "/worst/pose_map50_95"},
        {"box_map50_95", "/worst/box_map50_95"}}},
  };
  return kinds;
}

const LedgerKind& ledger_kind(const std::string& name) {
  std::string known;
  for (const LedgerKind& k : ledger_kinds()) {
    if (k.name == name) return k;
    known += (known.empty() ? "" : ", ") + k.name;
  }
  fail("unknown kind of ledger run '", name, "' (known: ", known, ")");
}

}  // namespace edgeq
