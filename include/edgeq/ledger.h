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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgeq
