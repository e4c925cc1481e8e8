// Integer codes at a quantized model's ends after the fact: what QuantizeOptions::quantize_io
// does during quantize(), applied to a QDQ model already written (e.g. to measure both forms).
#pragma once
#include <string>

#include "edgeq/calibrate.h"
#include "edgeq/choices.h"
#include "edgeq/model.h"

namespace edgeq {

// `qdq` (a model quantize() wrote) with its graph inputs / outputs as integer codes: `io` as
// QuantizeOptions::quantize_io (parse<QuantizeIo>("both") from a name); `stats` (the statistics
// it was quantized with) give the outputs' ranges. Throws edgeq::Error for an out-of-range `io`.
Model quantize_model_io(const Model& qdq, const CalibrationStats& stats,
                        QuantizeIo io = QuantizeIo::kBoth);

}  // namespace edgeq
