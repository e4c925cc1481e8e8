// `quantize --auto P --images DIR`: the search's flags onto edgeq::AutoSearchOptions, and what the
// command prints and writes from its report (the chosen set for --mixed, the log).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "edgeq/quantize.h"

namespace edgeq::cli {

struct AutoArgs {
  bool given = false;  // --auto on the command line (--auto 0 is refused, not "no search")
  AutoSearchOptions options;
  std::string set_out, log_out;
};

void add_auto_options(CLI::App* cmd, AutoArgs& a);
// Refuses --auto-out / --auto-log without --auto, before any work (--auto 0 is out of its range).
void check_auto_args(const AutoArgs& a);
// The summary line, and the set and log files when asked.
void write_auto_results(const AutoArgs& a, const AutoSearchReport& r);

}  // namespace edgeq::cli
