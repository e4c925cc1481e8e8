// Activation encodings from calibration statistics, for a QuantPlan and QuantConfig:
//   bit width: 16 for values named in config.a16 (or all, under W8A16), else 8; a group that
//              shares one encoding takes the widest of its members;
//   range:     the config's range scheme on the group's merged histogram; asymmetric groups of
//              SiLU values that reach its minimum get a grid point exactly there, the zero point
//              chosen so the top of the range stays covered (ir/silu.h: on yolo11n-pose W8A8 the
//              pile of values at the minimum, rounded one way, lowered every score: mean logit
//              -0.23 on 6 dev-split images; with the grid point -0.13); SiLU inputs that only
//              their SiLU reads start their range where the quantized gate closes, if the range
//              reaches below (quant/silu_gate.h: nothing below is seen past the Mul);
//   overrides: applied last, to the whole group of the named value (a shared encoding stays
//              shared); "float" leaves the group unquantized.
// Refuses (one line, naming the value): overrides or a16 names that are not values of the
// model or not quantized under the placement, values that saw NaN or Inf in calibration, and an
// override range too narrow for a float step (core/encoding.h: range_below_float_step). A
// calibrated range that narrow is encoded with scale 1 (its values become 0) and named in
// `warnings`.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "calib/stats.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "encode/weight_encoding.h"
#include "ir/graph.h"

namespace edgeq {

std::map<std::string, TensorEncoding> activation_encodings(
    const Graph& g, const QuantPlan& plan, const Stats& stats, const QuantConfig& config,
    std::vector<std::string>* warnings = nullptr);

}  // namespace edgeq
