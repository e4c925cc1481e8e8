#include "ledger/ledger_kinds.h"

#include "core/error.h"

namespace edgeq {

const std::vector<LedgerKind>& ledger_kinds() {
  static const std::vector<LedgerKind> kinds = {
      {"calibrate",
       "calibrate_runs",
       {{"images", "/images", Better::kNone},
        {"unreadable", "/unreadable", Better::kLower},
        {"ms_per_image", "/ms_per_image", Better::kLower},
        {"seconds", "/seconds", Better::kLower},
        {"values", "/values", Better::kNone},
        {"peak_rss_bytes", "/peak_rss_bytes", Better::kLower}}},
      {"quantize",
       "quantize_runs",
       {{"activations_8bit", "/activations_8bit", Better::kNone},
        {"activations_16bit", "/activations_16bit", Better::kNone},
        {"activations_float", "/activations_float", Better::kNone},
        {"weights_per_channel", "/weights_per_channel", Better::kNone},
        {"decode_tail_values", "/decode_tail_values", Better::kNone},
        {"decode_tail_8bit", "/decode_tail_8bit", Better::kNone}}},
      {"compare",
       "compare_runs",
       {{"images", "/images", Better::kNone},
        {"match_rate", "/detections/match_rate", Better::kHigher},
        {"matched", "/detections/matched", Better::kHigher},
        {"extra", "/detections/extra", Better::kLower},
        {"missing", "/detections/missing", Better::kLower},
        {"box_px_mean", "/detections/box_px/mean", Better::kLower},
        {"box_px_p95", "/detections/box_px/p95", Better::kLower},
        {"kpt_px_mean", "/detections/keypoint_px/mean", Better::kLower},
        {"kpt_px_p95", "/detections/keypoint_px/p95", Better::kLower},
        {"score_shift_mean", "/detections/score_shift/mean", Better::kLower},
        {"box_map50_95", "/labels/test/box/map50_95", Better::kHigher},
        {"pose_map50_95", "/labels/test/pose/map50_95", Better::kHigher},
        {"ref_box_map50_95", "/labels/ref/box/map50_95", Better::kNone},
        {"ref_pose_map50_95", "/labels/ref/pose/map50_95", Better::kNone}}},
      {"bench",
       "bench_runs",
       {{"latency_ms", "/median_ms", Better::kLower},
        {"min_ms", "/min_ms", Better::kLower},
        {"p95_ms", "/p95_ms", Better::kLower},
        {"throughput_ms_per_run", "/throughput_ms_per_run", Better::kLower},
        {"peak_fraction", "/peak/fraction", Better::kHigher},
        {"peak_rss_bytes", "/peak_rss_bytes", Better::kLower},
        {"arena_bytes", "/arena_bytes", Better::kLower},
        {"weight_bytes", "/weight_bytes", Better::kLower}}},
      {"run",
       "run_runs",
       {{"frames", "/frames", Better::kNone},
        {"detections", "/detections", Better::kNone},
        {"frames_per_s", "/frames_per_s", Better::kHigher},
        {"latency_ms", "/end_to_end_ms/p50", Better::kLower},
        {"latency_p95_ms", "/end_to_end_ms/p95", Better::kLower},
        {"infer_p50_ms", "/stages/infer/p50", Better::kLower},
        {"infer_p95_ms", "/stages/infer/p95", Better::kLower},
        {"dropped", "/dropped", Better::kLower},
        {"skipped", "/skipped", Better::kLower},
        {"peak_rss_bytes", "/peak_rss_bytes", Better::kLower}}},
      {"study",
       "study_runs",
       {{"runs", "/runs", Better::kNone},
        {"steps", "/steps", Better::kNone},
        {"cached", "/cached", Better::kNone},
        {"seconds", "/seconds", Better::kLower},
        {"match_rate", "/worst/match_rate", Better::kHigher},
        {"box_px_mean", "/worst/box_px_mean", Better::kLower},
        {"kpt_px_mean", "/worst/kpt_px_mean", Better::kLower},
        {"pose_map50_95", "/worst/pose_map50_95", Better::kHigher},
        {"box_map50_95", "/worst/box_map50_95", Better::kHigher}}},
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
