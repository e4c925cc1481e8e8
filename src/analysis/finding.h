// Finding: one thing `doctor` reports about a model (a truncated encoding, a Concat whose inputs
// differ in span, an op that would run on the CPU, ...), with the numbers behind it.
#pragma once
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "edgeq/choices.h"

namespace edgeq {

// edgeq::Severity (info < warning < error): edgeq/choices.h; name(): "error" | "warning" | "info"

struct Finding {
  Severity severity = Severity::kInfo;
  std::string kind;     // "truncation", "concat-span", "float-tail", "placement", "range", ...
  std::string value;    // the value at fault ("" when it is about a node)
  std::string node;     // the node at fault ("" when it is about a value)
  std::string message;  // one line for the user
  double score = 0;     // orders findings of equal severity (larger first)
  std::map<std::string, double> numbers;
};

// Most severe first, then by score (descending), then by kind and name (stable, deterministic).
void sort_findings(std::vector<Finding>& findings);
nlohmann::json finding_to_json(const Finding& f);

}  // namespace edgeq
