#include "analysis/finding.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace edgeq {

void sort_findings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.score != b.score) return a.score > b.score;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.value + a.node < b.value + b.node;
  });
}

nlohmann::json finding_to_json(const Finding& f) {
  nlohmann::json j = {
      {"severity", std::string(name(f.severity))}, {"kind", f.kind}, {"message", f.message}};
  if (!f.value.empty()) j["value"] = f.value;
  if (!f.node.empty()) j["node"] = f.node;
  nlohmann::json nums = nlohmann::json::object();
  for (const auto& [k, v] : f.numbers) nums[k] = std::isfinite(v) ? nlohmann::json(v) : nullptr;
  j["numbers"] = nums;
  return j;
}

}  // namespace edgeq
