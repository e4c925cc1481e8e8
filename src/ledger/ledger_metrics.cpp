#include "ledger/ledger_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace edgeq {
namespace {

// A key as one JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1").
std::string token(const std::string& key) {
  std::string t;
  for (char c : key) t += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return t;
}

// Numbers below `j` by JSON pointer ("/detections/box_px/mean").
void collect(const nlohmann::json& j, const std::string& pointer,
             std::map<std::string, double>& out) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (std::isfinite(v)) out[pointer] = v;
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) collect(value, pointer + "/" + token(key), out);
  } else if (j.is_array()) {
    for (const auto& e : j)
      if (e.is_object() && e.contains("name") && e["name"].is_string())
        collect(e, pointer + "/" + token(e["name"].get<std::string>()), out);
  }
}

std::string dotted(const std::string& pointer) {
  std::string s = pointer.substr(1);
  std::replace(s.begin(), s.end(), '/', '.');
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Better metric_better(const std::string& metric) {
  for (const LedgerKind& k : ledger_kinds())
    for (const LedgerColumn& c : k.columns)
      if (c.name == metric) return c.better;
  // A report path: judged by its unit, read from any of its parts ("end_to_end_ms.p95").
  std::string part;
  bool lower = false, higher = false;
  for (size_t i = 0; i <= metric.size(); ++i) {
    if (i < metric.size() && metric[i] != '.') {
      part += metric[i];
      continue;
    }
    lower |= ends_with(part, "_ms") || part == "ms" || ends_with(part, "_bytes") ||
             ends_with(part, "_px") || part == "seconds" || ends_with(part, "_seconds");
    higher |=
        part == "match_rate" || part.find("map50") != std::string::npos || part == "frames_per_s";
    part.clear();
  }
  return lower == higher ? Better::kNone : lower ? Better::kLower : Better::kHigher;
}

Metrics ledger_metrics(const LedgerKind& kind, const nlohmann::json& report) {
  std::map<std::string, double> by_pointer;
  collect(report, "", by_pointer);
  std::map<std::string, double> named;
  for (const LedgerColumn& c : kind.columns) {
    auto it = by_pointer.find(c.pointer);
    if (it == by_pointer.end()) continue;
    named[c.name] = it->second;
    by_pointer.erase(it);
  }
  for (const auto& [pointer, v] : by_pointer) named.emplace(dotted(pointer), v);
  return Metrics(named.begin(), named.end());
}

}  // namespace edgeq
