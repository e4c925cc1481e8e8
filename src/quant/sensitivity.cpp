#include "quant/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "calib/range_scheme.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "encode/qdq_export.h"
#include "quant/value_blocks.h"
#include "runtime/executor.h"
#include "vision/yolo_layout.h"

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

namespace {

using Groups = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::vector<Sensitivity> rank_groups(const Graph& fp32, const Stats& stats, const Groups& groups,
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
  std::optional<YoloLayout> layout;
  try {
    if (ref[0].rank() == 3) layout = yolo_layout_for(fp32, ref[0].shape());
  } catch (const Error&) {
    layout.reset();  // not a YOLO output: relative L2
  }
  auto scheme = make_range_scheme(opt.range);
  QuantConfig config;
  config.activation_bits = opt.bits;
  std::vector<Sensitivity> out;
  for (size_t k = 0; k < groups.size(); ++k) {
    QuantPlan plan;
    std::map<std::string, TensorEncoding> enc;
    for (const std::string& v : groups[k].second) {
      Range r = scheme->compute(stats.at(v), {opt.bits, false});
      enc[v] = TensorEncoding::per_tensor(encoding_from_range(r.lo, r.hi, opt.bits, false));
      plan.activations.push_back(v);
      plan.group_of[v] = v;
      plan.groups[v] = {v};
    }
    QdqModel q = export_qdq(fp32, plan, enc, config);
    Executor ex(std::move(q.graph));
    Sensitivity s{groups[k].first, 0, 0, {}};
    std::optional<DetectionLossAccumulator> acc;
    if (layout) acc.emplace(*layout);
    for (size_t i = 0; i < inputs.size(); ++i) {
      throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM (core/interrupt.h)
      Tensor y = ex.run(inputs[i]).at(output);
      s.rel_l2 += relative_l2(y, ref[i]) / inputs.size();
      if (acc) acc->add(ref[i], y);
    }
    if (acc) s.detections = acc->result();
    s.loss = acc ? s.detections.total() : s.rel_l2;
    out.push_back(s);
    if (opt.progress) opt.progress(k + 1, groups.size(), groups[k].first);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Sensitivity& a, const Sensitivity& b) { return a.loss > b.loss; });
  return out;
}

}  // namespace

std::vector<Sensitivity> rank_sensitivity(const Graph& fp32, const Stats& stats,
                                          const std::vector<std::string>& values,
                                          const std::vector<std::map<std::string, Tensor>>& inputs,
                                          const SensitivityOptions& opt) {
  Groups groups;
  for (const std::string& v : values) groups.push_back({v, {v}});
  return rank_groups(fp32, stats, groups, inputs, opt);
}

std::vector<Sensitivity> rank_block_sensitivity(
    const Graph& fp32, const Stats& stats, const std::vector<std::string>& values,
    const std::vector<std::map<std::string, Tensor>>& inputs, const SensitivityOptions& opt) {
  Groups groups;
  for (auto& [name, members] : value_blocks(fp32, values)) groups.push_back({name, members});
  return rank_groups(fp32, stats, groups, inputs, opt);
}

MixedSet mixed_set_from_ranking(const std::vector<Sensitivity>& ranking, double percent) {
  MixedSet m;
  size_t k = static_cast<size_t>(std::ceil(ranking.size() * percent / 100.0));
  if (k == 0 && !ranking.empty() && ranking[0].loss > 0) k = 1;
  for (size_t i = 0; i < ranking.size(); ++i) {
    if (i < k) m.a16.push_back(ranking[i].value);
    m.ranking.push_back({ranking[i].value, ranking[i].loss});
  }
  return m;
}

}  // namespace edgeq
