#include "calib/arm_stats.h"

#include "core/error.h"

namespace edgeq {

Stats stats_for_arm(const Stats& all, const Graph& arm, const std::string& arm_sha256) {
  Stats s;
  s.model_sha256 = arm_sha256;
  s.preprocessing = all.preprocessing;
  s.images = all.images;
  s.histogram_stride = all.histogram_stride;
  auto take = [&](const std::string& v) {
    auto it = all.values.find(v);
    if (it != all.values.end()) s.values.emplace(v, it->second);
  };
  for (const auto& in : arm.inputs) take(in.name);
  for (const auto& n : arm.nodes)
    for (const auto& o : n.outputs) take(o);
  for (const auto& o : arm.outputs)
    EDGEQ_CHECK(s.values.count(o.name) || o.dtype != DType::kFloat32, "arm output '", o.name,
                "' has no calibration statistics");
  return s;
}

}  // namespace edgeq
