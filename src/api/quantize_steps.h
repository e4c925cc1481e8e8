// The steps of quantize() that read images: weight repair and the mixed-precision search.
#pragma once
#include <map>
#include <string>

#include "api/api_impl.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "encode/weight_encoding.h"

namespace edgeq {

// Runs what o.repair asks (and what the scheme runs by default) on the float graph `g`:
// cross-layer equalization first (the values it rescales get fresh statistics in `stats`), then
// one calibration pass for GPTQ and bias correction. Returns the encodings of the weights GPTQ
// rounded, for quantize_model; fills `report`.
std::map<std::string, TensorEncoding> repair_weights_step(
    const QuantizeOptions& o, Graph& g, const QuantPlan& plan, const QuantConfig& c, Stats& stats,
    const std::string& model_sha256, ProgressReporter& progress, RepairReport& report);

// Runs the search when o.search.percent > 0; adds the chosen values to c.a16.
AutoSearchReport auto_search_step(const QuantizeOptions& o, const Graph& g, const Stats& stats,
                                  QuantConfig& c, ProgressReporter& progress);

}  // namespace edgeq
