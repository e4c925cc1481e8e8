// --threads and --exec, shared by the subcommands that run a model.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "runtime/executor.h"

namespace edgeq::cli {

struct RunOptions {
  int threads = 0;
  std::string exec = "simulate";
  ExecutorOptions executor() const;
};

void add_run_options(CLI::App* cmd, RunOptions& o);
// The executor's notices (e.g. ops --exec int8 runs in float), one line each on stderr.
void print_notices(Executor& ex);

}  // namespace edgeq::cli
