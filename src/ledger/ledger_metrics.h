// A command's report JSON -> named numbers for the ledger's metrics table: every finite number in
// it, named by its path with '.' (array elements that are objects with a "name" are keyed by that
// name, other arrays are left out), except that a number a kind column reads is named by the
// column (match_rate rather than detections.match_rate).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ledger/ledger_kinds.h"

namespace edgeq {

using Metrics = std::vector<std::pair<std::string, double>>;

// Sorted by name.
Metrics ledger_metrics(const LedgerKind& kind, const nlohmann::json& report);

// Which way `metric` is better: a kind's column says (the same name means the same in every
// kind); a metric named by its report path (e.g. stages.read.p95) by its unit: a time, a size in
// bytes or a pixel error is better lower, a match rate, mAP or frame rate higher; else kNone.
Better metric_better(const std::string& metric);

}  // namespace edgeq
