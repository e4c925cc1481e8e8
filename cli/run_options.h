// --threads, --exec and --emulate, shared by the subcommands that run a model.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace edgeq::cli {

struct RunOptions {
  int threads = 0;
  std::string exec = "simulate";
  std::string emulate = "none";
};

void add_run_options(CLI::App* cmd, RunOptions& o);
// --emulate (checked by check_emulation, edgeq/machine.h's emulates_int8).
void add_emulate_option(CLI::App* cmd, std::string& emulate);
// Throws when --emulate is unknown or asked of a run that is not --exec int8.
void check_emulation(const std::string& emulate, const std::string& exec);

}  // namespace edgeq::cli
