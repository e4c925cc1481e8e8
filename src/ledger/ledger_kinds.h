// The kinds of run the regression ledger records, in one table: each kind's SQL table and its
// columns, each column read from the command's report JSON by a JSON pointer. The same names are
// the metric names `ledger check` takes (match_rate, pose_map50_95, box_px_mean, latency_ms...).
//
// Adding a kind: one entry in ledger_kinds() and, in the command, add_ledger_options() plus one
// LedgerRecorder::record() call with its report JSON.
#pragma once
#include <string>
#include <vector>

namespace edgeq {

// Which way a metric is better: `ledger check` limits a higher-is-better metric's drop and a
// lower-is-better one's rise (a limit the other way would call an improvement a regression); a
// count that is neither (images, frames, values) may be limited either way.
enum class Better { kNone, kHigher, kLower };

struct LedgerColumn {
  std::string name;     // SQL column and metric name
  std::string pointer;  // JSON pointer into the command's report
  Better better = Better::kNone;
};

struct LedgerKind {
  std::string name;   // the command: calibrate, quantize, compare, bench, run, study
  std::string table;  // <name>_runs
  std::vector<LedgerColumn> columns;
};

const std::vector<LedgerKind>& ledger_kinds();
// Throws naming the known kinds when `name` is not one of them.
const LedgerKind& ledger_kind(const std::string& name);

}  // namespace edgeq
