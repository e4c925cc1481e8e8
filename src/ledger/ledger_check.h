// The regression gate over the ledger: the latest run of each kind tagged `baseline` against the
// latest of the same kind tagged `candidate`, metric by metric, under limits on how much a metric
// may drop (match_rate, pose_map50_95) or rise (box_px_mean, latency_ms).
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ledger/ledger.h"

namespace edgeq {

struct MetricLimit {
  std::string metric;
  double amount = 0;
  bool relative = false;  // amount is a fraction of |baseline| ("5%" -> 0.05)
  double allowed(double baseline) const;
  std::string text() const;  // "0.01" or "5%"
};

// "match_rate=0.01,latency_ms=5%" -> limits. Throws one line naming `flag` and the bad item.
std::vector<MetricLimit> parse_limits(const std::string& spec, const std::string& flag);

// Pairs of runs to compare: two run ids give that one pair; two tags give, for every kind both
// have, the latest run of that kind with each tag. Throws for an unknown tag (naming the known
// ones), an unknown run id, or tags with no kind in common.
// A run reference: "@N" names run N; anything else is a tag (so a tag "2" is never run 2).
// Throws for "@" followed by anything but a number.
std::optional<int64_t> parse_run_id(const std::string& ref);

std::vector<std::pair<LedgerRun, LedgerRun>> matching_runs(LedgerDb& ledger, const std::string& a,
                                                           const std::string& b);

struct CheckRow {
  std::string kind, metric, direction;        // direction: "drop" or "rise"
  std::optional<double> baseline, candidate;  // candidate empty: the metric went missing
  std::string limit;
  bool regressed = false;
};

struct CheckResult {
  std::vector<CheckRow> rows;
  std::vector<std::string> not_recorded;  // limited metrics neither side recorded
  size_t regressions() const;
};

// Refuses a metric limited twice in one list, a drop limit on a metric that is better lower (its
// drop is an improvement: latency_ms) and a rise limit on one better higher (match_rate); a
// metric that is neither (images) may be limited both ways. check_regressions calls it first; a
// front end may call it with its flags' names before opening the ledger.
void check_limits(const std::vector<MetricLimit>& max_drop,
                  const std::vector<MetricLimit>& max_rise, const std::string& drop_flag,
                  const std::string& rise_flag);

CheckResult check_regressions(LedgerDb& ledger, const std::string& baseline,
                              const std::string& candidate,
                              const std::vector<MetricLimit>& max_drop,
                              const std::vector<MetricLimit>& max_rise);

// The table of checked metrics (verdict per row) and a closing line.
void print_check(const CheckResult& r, const std::string& baseline, const std::string& candidate,
                 std::ostream& os);

}  // namespace edgeq
