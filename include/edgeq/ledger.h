// The regression ledger: one SQLite file that records finished runs (calibrate, quantize, compare,
// bench, run, study) with every number of their reports, and the gate that compares the runs
// tagged "candidate" with those tagged "baseline" metric by metric. What `--ledger` writes and
// `edgeq ledger` reads. A run is written in one transaction: a process killed at any point leaves
// every earlier run intact.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace edgeq {

// Why `tag` cannot tag a run, or "" when it can: it may not start with @ (the gate and
// `ledger show / diff` read @N as run N) nor hold a control character. Ledger::record refuses such
// a tag; front ends can ask first, before any work.
std::string ledger_tag_problem(const std::string& tag);

struct LedgerRecordOptions {
  std::string tag;                      // what the gate compares ("" for none; not starting with @)
  std::string command_line;             // how the run was started, for the record
  std::string options_json = "{}";      // the run's options, a JSON object
  std::string model_file, output_file;  // identified by their SHA-256 ("" for none)
};

struct LedgerRunInfo {
  int64_t id = 0;
  std::string time, kind, command_line, tag, model_sha256, output_sha256, options_json;
  std::vector<std::pair<std::string, double>> metrics;  // by name; filled by Ledger::run()
};

struct LedgerCheckOptions {
  // METRIC=AMOUNT or METRIC=PERCENT%, comma-separated: how much a metric may drop / rise.
  std::string max_drop = "match_rate=0.01,pose_map50_95=0.005";
  std::string max_rise = "box_px_mean=0.1,latency_ms=5%";
};

// Checks limits written as LedgerCheckOptions takes them, before any ledger is opened: an item
// that is not METRIC=AMOUNT[%], a metric limited twice in one list, a drop limit on a metric better
// lower or a rise limit on one better higher is refused, the message naming the list by
// `drop_name` / `rise_name` (what the caller calls them).
void validate_ledger_limits(const LedgerCheckOptions& limits,
                            const std::string& drop_name = "max_drop",
                            const std::string& rise_name = "max_rise");

struct LedgerCheck {
  struct Row {
    std::string kind, metric, direction;        // direction: "drop" or "rise"
    std::optional<double> baseline, candidate;  // candidate empty: the metric went missing
    std::string limit;
    bool regressed = false;
  };
  std::vector<Row> rows;
  std::vector<std::string> not_recorded;  // limited metrics neither side recorded
  size_t regressions = 0;
  std::string text;  // the table `edgeq ledger check` prints
};

class Ledger {
 public:
  // Opens a ledger; `write` creates the file when missing. A file that is not an edgeq ledger is
  // refused with one line (edgeq::Error).
  explicit Ledger(const std::string& path, bool write = false);
  ~Ledger();
  Ledger(Ledger&&) noexcept;
  Ledger& operator=(Ledger&&) noexcept;

  // Records a finished run of `kind` ("calibrate", "quantize", "compare", "bench", "run",
  // "study") with the numbers of `report_json` (a report's json / ledger_json); returns its id.
  int64_t record(const std::string& kind, const std::string& report_json,
                 const LedgerRecordOptions& options = {});
  // Every run, oldest first (metrics not filled); one run with its metrics.
  std::vector<LedgerRunInfo> runs();
  LedgerRunInfo run(int64_t id);
  std::vector<std::string> tags();
  // The gate: `baseline` and `candidate` are tags (the latest run of each kind both have) or "@N"
  // run ids. Throws for an unknown tag or run, or limits that do not parse.
  LedgerCheck check(const std::string& baseline, const std::string& candidate,
                    const LedgerCheckOptions& options = {});
  const std::string& path() const;

  // The runs that `a` and `b` name, paired for a diff: two "@N" give that one pair; two tags give,
  // for every kind both have, the latest run of that kind with each tag (metrics filled). Throws
  // for an unknown run or tag (naming the tags there are) or tags with no kind in common.
  std::vector<std::pair<LedgerRunInfo, LedgerRunInfo>> matching_runs(const std::string& a,
                                                                     const std::string& b);

  // The ledger's views as text, one run per line or block; every string read from the file is
  // escaped for a terminal. list_text: one line per run (id, time, kind, tag, model hash, its
  // first numbers) and a count; `tag` and `kind` ("" for any) select the runs.
  std::string list_text(const std::string& tag = "", const std::string& kind = "");
  // One run in full (fields, options, metrics): `ref` "@N" is run N, a tag gives its latest run of
  // each kind, "" the latest run. Throws for an empty ledger or an unknown run or tag.
  std::string show_text(const std::string& ref = "");
  // The metrics of the pairs matching_runs(a, b) gives, side by side with their change (a metric
  // only one run has shows "-").
  std::string diff_text(const std::string& a, const std::string& b);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgeq
