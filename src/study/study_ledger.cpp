#include "study/study_ledger.h"

#include <algorithm>
#include <string>

namespace edgeq {
namespace {

// Keeps in `worst[key]` the lowest (or highest) value seen.
void keep_worst(nlohmann::json& worst, const std::string& key, double v, bool lower_is_worse) {
  if (!worst.contains(key)) {
    worst[key] = v;
    return;
  }
  const double w = worst[key].get<double>();
  worst[key] = lower_is_worse ? std::min(w, v) : std::max(w, v);
}

}  // namespace

nlohmann::json study_ledger_report(const nlohmann::json& data) {
  const nlohmann::json& runs = data.at("runs");
  const nlohmann::json& timing = data.at("timing");
  nlohmann::json worst = nlohmann::json::object(), results = nlohmann::json::object();
  for (const nlohmann::json& run : runs) {
    const nlohmann::json& m = run.at("metrics");
    nlohmann::json one = {{"latency_ms", run.at("latency_ms").at("quantized")}};
    double rel_l2_max = 0;
    for (const nlohmann::json& o : m.at("outputs"))
      rel_l2_max = std::max(rel_l2_max, o.at("rel_l2").get<double>());
    one["rel_l2_max"] = rel_l2_max;
    if (m.contains("detections")) {
      const nlohmann::json& d = m.at("detections");
      for (const char* k : {"match_rate", "box_px_mean", "kpt_px_mean"}) {
        if (!d.contains(k) || d.at(k).is_null()) continue;  // no match rate: nothing detected
        one[k] = d.at(k);
        keep_worst(worst, k, d.at(k).get<double>(), std::string(k) == "match_rate");
      }
    }
    if (m.contains("map")) {
      const nlohmann::json& q = m.at("map").at("quantized");
      for (const char* k : {"pose_map50_95", "box_map50_95"}) {
        if (!q.contains(k)) continue;
        one[k] = q.at(k);
        keep_worst(worst, k, q.at(k).get<double>(), true);
      }
    }
    const std::string key = run.at("model").get<std::string>() + "." +
                            run.at("arm").get<std::string>() + "." +
                            run.at("scheme").get<std::string>();
    results[key] = one;
  }
  return {{"runs", runs.size()},
          {"steps", timing.at("steps")},
          {"cached", timing.at("cached_steps")},
          {"seconds", timing.at("seconds")},
          {"worst", worst},
          {"results", results}};
}

}  // namespace edgeq
