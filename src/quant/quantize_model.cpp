#include "quant/quantize_model.h"

#include "core/error.h"
#include "quant/activation_encodings.h"

namespace edgeq {

void check_stats_for_model(const Stats& stats, const std::string& model_sha256,
                           const std::string& stats_path, const std::string& model_path) {
  EDGEQ_CHECK(stats.model_sha256 == model_sha256, "stats were computed for another model: '",
              stats_path, "' records model SHA-256 ", stats.model_sha256.substr(0, 12), "..., '",
              model_path, "' is ", model_sha256.substr(0, 12), "...");
}

QuantPlan plan_for_stats(const Graph& g, const Stats& stats, const QuantConfig& config) {
  return plan_quantization(g, config,
                           [&](const std::string& v) { return stats.values.count(v) != 0; });
}

QdqModel quantize_model(const Graph& g, const QuantPlan& plan, const Stats& stats,
                        const QuantConfig& config,
                        const std::map<std::string, TensorEncoding>& fixed_weights) {
  std::vector<std::string> warnings;
  QdqModel q = export_qdq(g, plan, activation_encodings(g, plan, stats, config, &warnings), config,
                          fixed_weights);
  q.warnings = std::move(warnings);
  return q;
}

QuantSummary summarize_encodings(const EncodingSet& enc) {
  QuantSummary s;
  for (const auto& [name, te] : enc.activations) {
    if (te.is_float) {
      ++s.act_float;
      continue;
    }
    int bw = te.channels.at(0).bitwidth;
    (bw == 8 ? s.act8 : bw == 16 ? s.act16 : s.act_other)++;
  }
  for (const auto& [name, te] : enc.params) {
    if (te.is_float) continue;
    (te.per_channel() ? s.weights_per_channel : s.params_per_tensor)++;
  }
  return s;
}

}  // namespace edgeq
