#include "analysis/sensitivity.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "quant/qdq_export.h"
#include "quant/range_scheme.h"
#include "runtime/executor.h"

namespace edgeq {

double relative_l2(const Tensor& test, const Tensor& ref) {
  EDGEQ_CHECK(test.numel() == ref.numel(), "relative L2: shapes ", shape_str(test.shape()), " and ",
              shape_str(ref.shape()), " differ");
  std::vector<float> x = test.to_floats(), y = ref.to_floats();
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double d = double(x[i]) - y[i];
    num += d * d;
    den += double(y[i]) * y[i];
  }
  if (den == 0) return num == 0 ? 0 : INFINITY;
  return std::sqrt(num / den);
}

std::vector<Sensitivity> rank_sensitivity(const Graph& fp32, const Stats& stats,
                                          const std::vector<std::string>& values,
                                          const std::vector<std::map<std::string, Tensor>>& inputs,
                                          const SensitivityOptions& opt) {
  EDGEQ_CHECK(!inputs.empty(), "sensitivity needs at least one image");
  EDGEQ_CHECK(!fp32.outputs.empty(), "sensitivity: the model has no outputs");
  std::string output = opt.output.empty() ? fp32.outputs[0].name : opt.output;
  std::vector<Tensor> ref;
  {
    Executor ex(fp32);
    for (const auto& in : inputs) ref.push_back(ex.run(in).at(output));
  }
  auto scheme = make_range_scheme(opt.range);
  QuantConfig config;
  config.activation_bits = opt.bits;
  std::vector<Sensitivity> out;
  for (size_t k = 0; k < values.size(); ++k) {
    const std::string& v = values[k];
    const Histogram& h = stats.at(v);
    Range r = scheme->compute(h, {opt.bits, false});
    TensorEncoding te =
        TensorEncoding::per_tensor(encoding_from_range(r.lo, r.hi, opt.bits, false));
    QuantPlan plan;
    plan.activations = {v};
    plan.group_of[v] = v;
    plan.groups[v] = {v};
    QdqModel q = export_qdq(fp32, plan, {{v, te}}, config);
    Executor ex(std::move(q.graph));
    double sum = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      sum += relative_l2(ex.run(inputs[i]).at(output), ref[i]);
    out.push_back({v, sum / inputs.size()});
    if (opt.progress) opt.progress(k + 1, values.size(), v);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Sensitivity& a, const Sensitivity& b) { return a.rel_l2 > b.rel_l2; });
  return out;
}

MixedSet mixed_set_from_ranking(const std::vector<Sensitivity>& ranking, double percent) {
  MixedSet m;
  size_t k = static_cast<size_t>(std::ceil(ranking.size() * percent / 100.0));
  if (k == 0 && !ranking.empty() && ranking[0].rel_l2 > 0) k = 1;
  for (size_t i = 0; i < ranking.size(); ++i) {
    if (i < k) m.a16.push_back(ranking[i].value);
    m.ranking.push_back({ranking[i].value, ranking[i].rel_l2});
  }
  return m;
}

}  // namespace edgeq
