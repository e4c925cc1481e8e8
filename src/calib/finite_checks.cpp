#include "calib/finite_checks.h"

#include <cmath>

#include "core/error.h"

namespace edgeq {
namespace {

void check_tensor(const Tensor& t, const std::string& name, const std::string& model_path) {
  if (t.dtype() != DType::kFloat32) return;
  size_t nan = 0, inf = 0;
  const float* x = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    nan += std::isnan(x[i]);
    inf += std::isinf(x[i]);
  }
  EDGEQ_CHECK(nan == 0 && inf == 0, model_path, ": weight tensor '", name, "' holds ", nan,
              " NaN and ", inf, " infinite values; refusing to calibrate");
}

}  // namespace

void check_finite_weights(const Graph& g, const std::string& model_path) {
  for (const auto& [name, t] : g.initializers) check_tensor(t, name, model_path);
  for (const Node& n : g.nodes)
    if (n.op_type == "Constant" && n.has_attr("value") && !n.outputs.empty())
      check_tensor(n.attrs.at("value").t, n.outputs[0], model_path);
}

void check_finite_activations(const Graph& g, const Stats& stats) {
  auto check = [&](const std::string& v) {
    auto it = stats.values.find(v);
    if (it == stats.values.end()) return;
    const Histogram& h = it->second;
    EDGEQ_CHECK(h.nan_count() == 0 && h.inf_count() == 0, "activation '", v, "' held ",
                h.nan_count(), " NaN and ", h.inf_count(),
                " infinite values during calibration (first such value in execution order); "
                "nothing written");
  };
  for (const ValueInfo& in : g.inputs) check(in.name);
  for (int i : g.topo_order())
    for (const std::string& o : g.nodes[i].outputs) check(o);
  for (const auto& [v, h] : stats.values) check(v);  // anything not reached above
}

}  // namespace edgeq
