// The reports of calibrate() and quantize() as JSON text: one key set for every front end (the
// program's timings file and ledger rows, Python's report dicts). BenchReport carries its own
// (BenchReport::json).
#pragma once
#include <string>

#include "edgeq/calibrate.h"
#include "edgeq/quantize.h"

namespace edgeq {

// A calibration run: model (`model`, as the caller names it), images (used), unreadable,
// workers, threads_per_worker, histogram_stride, seconds, ms_per_image, values, values_read,
// values_derived, and peak_rss_bytes of this process so far. indent < 0: one line.
std::string calibration_json(const Calibration& run, const CalibrateOptions& options,
                             const std::string& model, int indent = -1);

// A quantization: scheme, range (as applied), placement, quantize_io, and the counts of
// QuantizeSummary (activations by width, weights per channel, parameters per tensor, the decode
// tail). indent < 0: one line.
std::string quantize_summary_json(const QuantizedModel& q, int indent = -1);

}  // namespace edgeq
