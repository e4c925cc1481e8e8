// Integer codes at a quantized model's ends after the fact: what QuantizeOptions::quantize_io
// does during quantize(), applied to a QDQ model already written (e.g. to measure both forms).
#pragma once
#include <string>

#include "edgeq/calibrate.h"
#include "edgeq/model.h"

namespace edgeq {

// `qdq` (a model quantize() wrote) with its graph inputs / outputs as integer codes: `io` is
// "in" | "out" | "both" | "none", as QuantizeOptions::quantize_io; `stats` (the statistics it was
// quantized with) give the outputs' ranges. Throws edgeq::Error for another `io`.
Model quantize_model_io(const Model& qdq, const CalibrationStats& stats,
                        const std::string& io = "both");

}  // namespace edgeq
