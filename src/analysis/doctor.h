// Doctor: every check on one model, findings most severe first.
//   ranges       (needs stats)      per-value FP32 ranges, pixel-space steps, tap blocks
//   truncation   (stats+encodings)  encodings that clip the observed range, pin pixels
//   concat spans (needs stats)      span ratios and tails a shared encoding would cut
//   constants    (encodings)        quantized constants of the decode and integer-grid weights
//                                   that quantization moves, in pixels
//   float tails  (QDQ models)       ops outside Q/DQ, float graph inputs/outputs
//   placement    (always)           ops the target cannot run quantized
// Encodings come from --encodings when given, else from the model's own Q/DQ parameters, so
// third-party QDQ models work as ours do. Statistics are keyed by FP32 value names; a QDQ
// model is judged through its float view (analysis/qdq_view.h).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/concat_spans.h"
#include "analysis/finding.h"
#include "analysis/int8_saturation.h"
#include "analysis/op_support.h"
#include "analysis/value_ranges.h"
#include "calib/stats.h"
#include "encode/encodings_json.h"
#include "ir/graph.h"
#include "ir/head_decode.h"

namespace edgeq {

struct DoctorResult {
  std::string target;
  bool qdq = false;            // the model holds Q/DQ nodes
  std::string encodings_from;  // "model", "file" or "none"
  size_t activation_encodings = 0;
  bool has_stats = false;
  std::optional<BoxDecode> box_decode;
  std::vector<ValueRange> ranges;
  std::vector<ConcatSpan> concats;
  std::optional<SaturationReport> saturation;  // a QDQ model for a target that pairs products
  std::vector<Finding> findings;               // sorted, most severe first
};

// `encodings_file` / `stats` / `images` may be null. Throws naming the value when the encodings
// file names a value the model does not have. `images` (the model's inputs): how often int8 pairs
// saturated on them, and the detections the emulation of ORT's AVX2 kernels predicts.
DoctorResult run_doctor(const Graph& model, const EncodingSet* encodings_file, const Stats* stats,
                        const TargetOps& target,
                        const std::vector<std::map<std::string, Tensor>>* images = nullptr);

nlohmann::json doctor_report_to_json(const DoctorResult& r);
// Text for the terminal: a summary line, then the findings grouped by (severity, kind), the
// groups most severe first, each with its count and its costliest few (3 errors or warnings, 1
// info; at most `max_info` info findings in all), the rest counted. With `all`: every finding,
// one a line, most severe first (info findings still capped at `max_info`).
struct DoctorText {
  std::string text;
  size_t hidden = 0;  // findings the text leaves out
};
DoctorText format_doctor_text(const DoctorResult& r, size_t max_info, bool all = false);
std::string format_doctor_report(const DoctorResult& r, size_t max_info, bool all = false);

}  // namespace edgeq
