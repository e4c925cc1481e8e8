// The reports' JSON (edgeq/report_json.h) and the calibration shard's text form
// (edgeq/calibrate_shard.h).
#include "edgeq/report_json.h"

#include <nlohmann/json.hpp>

#include "api/api_impl.h"
#include "calib/calibration_images.h"
#include "core/json_text.h"
#include "core/process_stats.h"
#include "edgeq/calibrate_shard.h"

namespace edgeq {

std::string calibration_json(const Calibration& run, const CalibrateOptions& o,
                             const std::string& model, int indent) {
  const double ms_per_image = 1e3 * run.seconds / run.used;
  const nlohmann::json report = {{"model", model},
                                 {"images", run.used},
                                 {"unreadable", run.unreadable},
                                 {"workers", run.workers},
                                 {"threads_per_worker", run.threads_per_worker},
                                 {"histogram_stride", o.histogram_stride},
                                 {"seconds", run.seconds},
                                 {"ms_per_image", ms_per_image},
                                 {"values", run.stats.values()},
                                 {"values_read", run.values_read},
                                 {"values_derived", run.values_derived},
                                 {"peak_rss_bytes", peak_rss_bytes()}};
  return json_text(report, indent);
}

std::string quantize_summary_json(const QuantizedModel& q, int indent) {
  const detail::QuantizedModelImpl& m = impl_of(q);
  const QuantizeSummary& s = m.summary;
  const nlohmann::json report = {
      {"scheme", edgeq::name(m.scheme)},          {"range", s.range},
      {"placement", edgeq::name(s.placement)},    {"activations_8bit", s.activations_8bit},
      {"activations_16bit", s.activations_16bit}, {"activations_other", s.activations_other},
      {"activations_float", s.activations_float}, {"weights_per_channel", s.weights_per_channel},
      {"params_per_tensor", s.params_per_tensor}, {"decode_tail_values", s.decode_tail_values},
      {"decode_tail_8bit", s.decode_tail_8bit},   {"quantize_io", edgeq::name(m.quantize_io)}};
  return json_text(report, indent);
}

CalibrationShard parse_calibration_shard(const std::string& text) {
  const Shard s = parse_shard(text);
  return {s.index, s.count};
}

}  // namespace edgeq
