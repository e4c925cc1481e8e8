#include "ledger/ledger_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

#include "core/comma_list.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/text_format.h"
#include "ledger/ledger_kinds.h"
#include "ledger/ledger_metrics.h"

namespace edgeq {
namespace {

void check_tag_exists(LedgerDb& ledger, const std::string& tag) {
  const std::vector<std::string> tags = ledger.tags();
  if (std::find(tags.begin(), tags.end(), tag) != tags.end()) return;
  std::string known;
  for (const std::string& t : tags) known += (known.empty() ? "" : ", ") + t;
  fail("ledger ", ledger.path(), " has no run tagged '", tag,
       "' (tags: ", known.empty() ? "none" : known, ")");
}

std::string number(double v) {
  return format_number("%.6g", v);
}

}  // namespace

double MetricLimit::allowed(double baseline) const {
  return relative ? amount * std::fabs(baseline) : amount;
}

std::string MetricLimit::text() const {
  return relative ? number(100 * amount) + "%" : number(amount);
}

std::vector<MetricLimit> parse_limits(const std::string& spec, const std::string& flag) {
  std::vector<MetricLimit> out;
  for (const std::string& item : comma_list(spec)) {
    const size_t eq = item.find('=');
    EDGEQ_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < item.size(), flag, ": expected ",
                "METRIC=AMOUNT or METRIC=PERCENT%, got '", item, "'");
    MetricLimit l;
    l.metric = item.substr(0, eq);
    std::string amount = item.substr(eq + 1);
    if (amount.back() == '%') {
      l.relative = true;
      amount.pop_back();
    }
    size_t used = 0;
    try {
      l.amount = std::stod(amount, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EDGEQ_CHECK(used == amount.size() && used > 0 && std::isfinite(l.amount) && l.amount >= 0, flag,
                ": '", item, "' needs a non-negative number");
    if (l.relative) l.amount /= 100;
    out.push_back(l);
  }
  return out;
}

std::optional<int64_t> parse_run_id(const std::string& ref) {
  if (ref.empty() || ref[0] != '@') return std::nullopt;
  const std::string digits = ref.substr(1);
  EDGEQ_CHECK(
      !digits.empty() && digits.size() <= 18 &&
          std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }),
      "run id '", ref, "': expected @ and the run's number (e.g. @12, as ledger list ",
      "shows it); a tag never starts with @");
  return std::stoll(digits);
}

std::vector<std::pair<LedgerRun, LedgerRun>> matching_runs(LedgerDb& ledger, const std::string& a,
                                                           const std::string& b) {
  const std::optional<int64_t> ia = parse_run_id(a), ib = parse_run_id(b);
  EDGEQ_CHECK(ia.has_value() == ib.has_value(), "'", ia ? a : b, "' is a run id and '", ia ? b : a,
              "' a tag: compare two runs (@id) or two tags");
  if (ia) return {{ledger.run(*ia), ledger.run(*ib)}};
  check_tag_exists(ledger, a);
  check_tag_exists(ledger, b);
  std::vector<std::pair<LedgerRun, LedgerRun>> pairs;
  for (const LedgerKind& k : ledger_kinds()) {
    const auto ra = ledger.latest(a, k.name), rb = ledger.latest(b, k.name);
    if (ra && rb) pairs.emplace_back(ledger.run(*ra), ledger.run(*rb));
  }
  EDGEQ_CHECK(!pairs.empty(), "tags '", a, "' and '", b,
              "' have no kind of run in common (e.g. both a compare run)");
  return pairs;
}

size_t CheckResult::regressions() const {
  return static_cast<size_t>(
      std::count_if(rows.begin(), rows.end(), [](const CheckRow& r) { return r.regressed; }));
}

void check_limits(const std::vector<MetricLimit>& max_drop,
                  const std::vector<MetricLimit>& max_rise, const std::string& drop_flag,
                  const std::string& rise_flag) {
  auto check = [](const std::vector<MetricLimit>& limits, const std::string& flag, Better worse_way,
                  const std::string& other_flag) {
    std::set<std::string> seen;
    for (const MetricLimit& l : limits) {
      EDGEQ_CHECK(seen.insert(l.metric).second, flag, ": ", l.metric, " is limited twice");
      EDGEQ_CHECK(metric_better(l.metric) != worse_way, flag, ": ", l.metric, " is better ",
                  worse_way == Better::kLower ? "lower: a drop" : "higher: a rise",
                  " is an improvement; limit it with ", other_flag);
    }
  };
  check(max_drop, drop_flag, Better::kLower, rise_flag);
  check(max_rise, rise_flag, Better::kHigher, drop_flag);
}

CheckResult check_regressions(LedgerDb& ledger, const std::string& baseline,
                              const std::string& candidate,
                              const std::vector<MetricLimit>& max_drop,
                              const std::vector<MetricLimit>& max_rise) {
  check_limits(max_drop, max_rise, "max_drop", "max_rise");
  CheckResult result;
  const auto pairs = matching_runs(ledger, baseline, candidate);
  auto check = [&](const MetricLimit& l, bool drop) {
    bool seen = false;
    for (const auto& [b, c] : pairs) {
      const std::optional<double> vb = b.metric(l.metric), vc = c.metric(l.metric);
      if (!vb) continue;  // the baseline never had it: nothing to hold the candidate to
      seen = true;
      CheckRow row{b.kind, l.metric, drop ? "drop" : "rise", vb, vc, l.text(), true};
      if (vc) {
        const double worse = drop ? *vb - *vc : *vc - *vb;
        row.regressed = worse > l.allowed(*vb);
      }
      result.rows.push_back(row);
    }
    if (!seen) result.not_recorded.push_back(l.metric);
  };
  for (const MetricLimit& l : max_drop) check(l, true);
  for (const MetricLimit& l : max_rise) check(l, false);
  // A limit on a name no kind of run records (a misspelt "latnecy") would pass every gate: it is
  // an error, not a note.
  for (const std::string& m : result.not_recorded) {
    std::set<std::string> known;
    for (const LedgerKind& k : ledger_kinds())
      for (const LedgerColumn& c : k.columns) known.insert(c.name);
    if (known.count(m)) continue;
    std::string names;
    for (const std::string& n : known) names += (names.empty() ? "" : ", ") + n;
    fail("unknown metric '", m, "' in the limits (a ledger records: ", names, ")");
  }
  EDGEQ_CHECK(!result.rows.empty(), "none of the limited metrics is recorded in the runs tagged '",
              baseline, "'");
  return result;
}

void print_check(const CheckResult& r, const std::string& baseline, const std::string& candidate,
                 std::ostream& os) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-20s %14s %14s %14s %12s  %s\n", "kind", "metric",
                "baseline", "candidate", "change", "max", "verdict");
  os << line;
  for (const CheckRow& row : r.rows) {
    const std::string change =
        row.candidate ? number(*row.candidate - *row.baseline) : std::string("missing");
    std::snprintf(line, sizeof line, "%-10s %-20s %14s %14s %14s %12s  %s\n",
                  printable(row.kind).c_str(), printable(row.metric).c_str(),
                  number(*row.baseline).c_str(),
                  row.candidate ? number(*row.candidate).c_str() : "-", change.c_str(),
                  (row.direction + " " + row.limit).c_str(), row.regressed ? "REGRESSED" : "ok");
    os << line;
  }
  for (const std::string& m : r.not_recorded)
    os << "note: " << printable(m) << " is not recorded in the baseline runs; not checked\n";
  const size_t n = r.regressions();
  os << "ledger check: " << n << " of " << r.rows.size() << " checked metric"
     << (r.rows.size() == 1 ? "" : "s") << " regressed (" << printable(candidate) << " against "
     << printable(baseline) << ")\n";
}

}  // namespace edgeq
