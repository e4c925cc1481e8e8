// --threads, --exec and --emulate, shared by the subcommands that run a model.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "edgeq/exec_options.h"

namespace edgeq::cli {

struct RunOptions {
  int threads = 0;
  std::string exec = "simulate";
  std::string emulate = "none";
};

void add_run_options(CLI::App* cmd, RunOptions& o);
// The flags as edgeq::ExecOptions, checked by edgeq::validate(ExecOptions): throws for an
// unknown --emulate or one asked of a run that is not int8 (call it before any image is read).
ExecOptions exec_options(const RunOptions& o);

}  // namespace edgeq::cli
