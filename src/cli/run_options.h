// --threads, --exec and --emulate, shared by the subcommands that run a model.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "runtime/executor.h"

namespace edgeq::cli {

struct RunOptions {
  int threads = 0;
  std::string exec = "simulate";
  std::string emulate = "none";
  ExecutorOptions executor() const;
};

void add_run_options(CLI::App* cmd, RunOptions& o);
// --emulate (checked when parsed: runtime/int8_pairs.h's parse_int8_emulation).
void add_emulate_option(CLI::App* cmd, std::string& emulate);
// The parsed --emulate; throws when it is unknown or asked of a run that is not --exec int8.
Int8Emulation checked_emulation(const std::string& emulate, ExecMode exec);
// The executor's notices (e.g. ops --exec int8 runs in float), one line each on stderr.
void print_notices(Executor& ex);

}  // namespace edgeq::cli
