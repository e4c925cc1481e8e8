// --ledger FILE.sqlite [--tag T], shared by the commands that record their runs (calibrate,
// quantize, compare, bench, run, study). The ledger opens
// before the work starts, so a bad file fails fast, and the run is recorded when it finished.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "edgeq/files.h"
#include "edgeq/ledger.h"

namespace edgeq::cli {

struct LedgerArgs {
  std::string file, tag;
  const CLI::App* command = nullptr;  // whose options are recorded
};

void add_ledger_options(CLI::App* cmd, LedgerArgs& a);
// --ledger among a command's outputs for check_distinct_files (core/io_guard.h): read and written,
// it may be no input and no other output.
RoleFile ledger_output(const LedgerArgs& a);

// The program's command line, shell-quoted (main() sets it once).
void set_command_line(int argc, const char* const* argv);
const std::string& command_line();

class LedgerRecorder {
 public:
  // Opens --ledger when it exists (throws one line for a file that is not a ledger); a new ledger
  // is created by the first record(), so a command that fails leaves no file behind.
  explicit LedgerRecorder(const LedgerArgs& a);
  // Records the finished run of `kind` with the numbers of `report_json` (a report's JSON text,
  // e.g. edgeq::quantize_summary_json); `model_file` and `output_file` ("" for none) are
  // identified by their SHA-256. No-op without --ledger.
  void record(const std::string& kind, const std::string& report_json,
              const std::string& model_file, const std::string& output_file);
  // The same from a parsed report (compare, run and study still parse theirs).
  void record(const std::string& kind, const nlohmann::json& report, const std::string& model_file,
              const std::string& output_file);

 private:
  const LedgerArgs& args_;
  std::unique_ptr<Ledger> ledger_;
};

}  // namespace edgeq::cli
