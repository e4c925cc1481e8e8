// The quantize pipeline as one call: check that the stats belong to the model, plan, choose
// activation encodings (overrides last), export QDQ. Nothing is written: callers save the result
// only when every step succeeded.
#pragma once
#include <string>

#include "calib/stats.h"
#include "encode/qdq_export.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "ir/graph.h"

namespace edgeq {

// Refuses stats recorded for other model bytes: "stats were computed for another model".
void check_stats_for_model(const Stats& stats, const std::string& model_sha256,
                           const std::string& stats_path, const std::string& model_path);

// The plan for `config` over the values the stats observed.
QuantPlan plan_for_stats(const Graph& g, const Stats& stats, const QuantConfig& config);

// `fixed_weights`: encodings of weights weight repair put on a grid (repair/weight_repair.h).
QdqModel quantize_model(const Graph& g, const QuantPlan& plan, const Stats& stats,
                        const QuantConfig& config,
                        const std::map<std::string, TensorEncoding>& fixed_weights = {});

// Counts for the summary line of `edgeq quantize`.
struct QuantSummary {
  size_t act8 = 0, act16 = 0, act_other = 0, act_float = 0;
  size_t weights_per_channel = 0, params_per_tensor = 0;
};
QuantSummary summarize_encodings(const EncodingSet& enc);

}  // namespace edgeq
