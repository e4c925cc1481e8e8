#include "ledger/ledger_print.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/printable.h"
#include "core/text_format.h"

namespace edgeq {
namespace {

constexpr size_t kListedMetrics = 4;

std::string short_hash(const std::string& sha) {
  return sha.empty() ? "-" : sha.substr(0, 12);
}

std::string number(double v) {
  return format_number("%.6g", v);
}

}  // namespace

void print_run_list(LedgerDb& ledger, const std::vector<LedgerRun>& runs, std::ostream& os) {
  char line[512];
  std::snprintf(line, sizeof line, "%5s  %-20s  %-10s  %-14s  %-12s  %s\n", "id", "time (UTC)",
                "kind", "tag", "model", "metrics");
  os << line;
  for (const LedgerRun& listed : runs) {
    const LedgerRun r = ledger.run(listed.id);
    std::string shown;
    size_t n = 0;
    for (const LedgerColumn& c : ledger_kind(r.kind).columns) {
      const std::optional<double> v = r.metric(c.name);
      if (!v) continue;
      if (n++ == kListedMetrics) break;
      shown += (shown.empty() ? "" : "  ") + c.name + "=" + number(*v);
    }
    std::snprintf(line, sizeof line, "%5lld  %-20s  %-10s  %-14s  %-12s  %s\n",
                  static_cast<long long>(r.id), printable(r.time).c_str(),
                  printable(r.kind).c_str(), r.tag.empty() ? "-" : printable(r.tag).c_str(),
                  printable(short_hash(r.model_sha256)).c_str(), shown.c_str());
    os << line;
  }
  os << runs.size() << " run(s) in " << printable(ledger.path()) << "\n";
}

void print_run(const LedgerRun& r, std::ostream& os) {
  os << "run " << r.id << " (" << printable(r.kind) << ")"
     << (r.tag.empty() ? "" : ", tag " + printable(r.tag)) << "\n"
     << "  time      " << printable(r.time) << " UTC\n"
     << "  command   " << printable(r.command_line) << "\n"
     << "  model     " << (r.model_sha256.empty() ? "-" : printable(r.model_sha256)) << "\n"
     << "  output    " << (r.output_sha256.empty() ? "-" : printable(r.output_sha256)) << "\n"
     << "  options   " << printable(r.options) << "\n"
     << "  metrics (" << r.metrics.size() << ")\n";
  char line[256];
  for (const auto& [name, v] : r.metrics) {
    std::snprintf(line, sizeof line, "    %-36s %s\n", printable(name).c_str(), number(v).c_str());
    os << line;
  }
}

void print_run_diff(const LedgerRun& a, const LedgerRun& b, std::ostream& os) {
  auto title = [](const LedgerRun& r) {
    return "run " + std::to_string(r.id) + " (" + printable(r.kind) +
           (r.tag.empty() ? "" : ", " + printable(r.tag)) + ")";
  };
  os << title(a) << " -> " << title(b) << "\n";
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> rows;
  for (const auto& [name, v] : a.metrics) rows[name].first = v;
  for (const auto& [name, v] : b.metrics) rows[name].second = v;
  char line[256];
  std::snprintf(line, sizeof line, "  %-36s %14s %14s %14s %9s\n", "metric", "a", "b", "change",
                "change %");
  os << line;
  for (const auto& [name, v] : rows) {
    const auto& [va, vb] = v;
    std::string change = "-", pct = "-";
    if (va && vb) {
      change = number(*vb - *va);
      if (*va != 0) pct = format_number("%+.2f%%", 100 * (*vb - *va) / std::abs(*va));
    }
    std::snprintf(line, sizeof line, "  %-36s %14s %14s %14s %9s\n", printable(name).c_str(),
                  va ? number(*va).c_str() : "-", vb ? number(*vb).c_str() : "-", change.c_str(),
                  pct.c_str());
    os << line;
  }
}

}  // namespace edgeq
