// The regression ledger: one SQLite file (WAL mode) that every edgeq command given --ledger adds
// one run to when it finishes. Tables:
//   ledger_meta(key, value)              schema version; marks the file as an edgeq ledger
//   runs(id, time, kind, command_line, tag, model_sha256, output_sha256, options)
//   metrics(run_id, name, value)         every number of the run's report (ledger_metrics.h)
//   <kind>_runs(run_id, <columns>)       one table per kind (ledger_kinds.h), for SQL queries
// A run is written in one transaction after it finished: a process killed at any point leaves
// every earlier run intact and the file valid.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger_metrics.h"
#include "ledger/sqlite_db.h"

namespace edgeq {

struct LedgerEntry {
  std::string kind;  // a ledger_kinds() name
  std::string command_line, tag;
  std::string model_sha256, output_sha256;  // "" when there is none
  nlohmann::json options = nlohmann::json::object();
  nlohmann::json report;  // the command's numbers
};

struct LedgerRun {
  int64_t id = 0;
  std::string time, kind, command_line, tag, model_sha256, output_sha256, options;
  Metrics metrics;  // filled by LedgerDb::run()
  std::optional<double> metric(const std::string& name) const;
};

class LedgerDb {
 public:
  enum class Access { kWrite, kRead };
  // kWrite creates the file when missing and brings the schema up to date; kRead needs an
  // existing ledger. Either way a file that is not an edgeq ledger is refused with one line.
  LedgerDb(const std::string& path, Access access);

  // Adds a finished run in one transaction; returns its id.
  int64_t record(const LedgerEntry& e);
  // Every run, oldest first (metrics not filled).
  std::vector<LedgerRun> runs();
  // One run with its metrics; throws when there is none with that id.
  LedgerRun run(int64_t id);
  // The latest run of `kind` tagged `tag`.
  std::optional<int64_t> latest(const std::string& tag, const std::string& kind);
  // Tags in use, sorted.
  std::vector<std::string> tags();
  const std::string& path() const { return db_.path(); }

 private:
  void check_is_ledger(Access access);
  void create_schema();

  SqliteDb db_;
};

}  // namespace edgeq
