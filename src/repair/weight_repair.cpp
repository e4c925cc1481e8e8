#include "repair/weight_repair.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/interrupt.h"
#include "encode/qdq_export.h"
#include "repair/bias_correction.h"

namespace edgeq {

bool gptq_by_default(const QuantConfig& config) {
  return config.weight_bits == 8 && config.activation_bits >= 16;
}

std::vector<ConvInputRequest> weight_repair_requests(const Graph& g, const QuantPlan& plan,
                                                     const WeightRepairOptions& opt) {
  std::vector<ConvInputRequest> out;
  if (!opt.any()) return out;
  for (int i : plan.quantized_nodes) {  // std::set: graph order
    const Node& n = g.nodes[i];
    if (n.op_type != "Conv" || !n.domain.empty() || !n.has_input(1)) continue;
    auto w = g.initializers.find(n.inputs[1]);
    if (w == g.initializers.end() || w->second.dtype() != DType::kFloat32 || w->second.rank() != 4)
      continue;
    if (g.consumers_of(n.inputs[1]).size() != 1)
      continue;            // a shared weight: one rounding fits all
    if (n.has_input(2)) {  // a bias to correct: a float32 [O] initializer of this conv alone
      auto b = g.initializers.find(n.inputs[2]);
      if (b == g.initializers.end() || b->second.dtype() != DType::kFloat32 ||
          b->second.numel() != w->second.shape()[0] || g.consumers_of(n.inputs[2]).size() != 1)
        continue;
    }
    out.push_back({n.name, opt.gptq});
  }
  return out;
}

std::map<std::string, TensorEncoding> repair_weights(
    Graph& g, const QuantPlan& plan, const QuantConfig& config, const WeightRepairOptions& opt,
    const std::map<std::string, ConvInputMoments>& moments, WeightRepairSummary* summary) {
  WeightRepairSummary unused;
  WeightRepairSummary& s = summary ? *summary : unused;
  std::map<std::string, TensorEncoding> fixed;
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  std::set<std::string> repairable;
  for (const ConvInputRequest& r : weight_repair_requests(g, plan, opt)) repairable.insert(r.conv);
  for (const auto& [name, m] : moments) {
    throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM; the caller's graph is dropped
    EDGEQ_CHECK(repairable.count(name), "weight repair: '", name,
                "' is not a quantized Conv with its own float weight");
    Node* conv = nullptr;
    for (Node& n : g.nodes)
      if (n.name == name) conv = &n;
    Tensor& w = g.initializers.at(conv->inputs[1]);
    const TensorEncoding enc = node_weight_encoding(*conv, w, config);
    Tensor rounded;
    if (opt.gptq) {
      GptqResult q = gptq_round(w, enc, m, opt.gptq_options, threads);
      const Tensor nearest = dequantize_tensor(quantize_tensor(w, enc), enc);
      for (int64_t i = 0; i < w.numel(); ++i)
        s.codes_changed += q.weight.data<float>()[i] != nearest.data<float>()[i];
      s.rows += q.rows;
      s.rows_exact += q.rows_exact;
      rounded = std::move(q.weight);
    } else {
      rounded = dequantize_tensor(quantize_tensor(w, enc), enc);
    }
    if (opt.bias_correction) {
      if (!conv->has_input(2)) {
        conv->inputs.resize(3);
        conv->inputs[2] = g.unique_name(conv->inputs[1] + "_bias");
      }
      auto b = g.initializers.find(conv->inputs[2]);
      const Tensor* bias = b != g.initializers.end() ? &b->second : nullptr;
      Tensor corrected = corrected_bias(w, rounded, bias, m);
      for (int64_t o = 0; o < corrected.numel(); ++o)
        s.max_bias_shift =
            std::max(s.max_bias_shift, std::fabs(static_cast<double>(corrected.data<float>()[o]) -
                                                 (bias ? bias->data<float>()[o] : 0.0f)));
      g.initializers[conv->inputs[2]] = std::move(corrected);
    }
    if (opt.gptq) {
      w = std::move(rounded);
      fixed[conv->inputs[1]] = enc;
    }
    ++s.convs;
  }
  return fixed;
}

}  // namespace edgeq
