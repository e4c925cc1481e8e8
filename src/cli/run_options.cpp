#include "cli/run_options.h"

#include <iostream>

namespace edgeq::cli {

ExecutorOptions RunOptions::executor() const {
  ExecutorOptions opt;
  opt.threads = threads;
  opt.exec = parse_exec_mode(exec);
  return opt;
}

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--threads", o.threads, "threads (0: all cores)");
  cmd->add_option("--exec", o.exec,
                  "how a QDQ model runs: simulate (float with fake-quant steps, bit-identical to "
                  "its Q/DQ ops) or int8 (8-bit activations as codes on integer kernels)")
      ->check(CLI::IsMember({"simulate", "int8"}))
      ->capture_default_str();
}

void print_notices(Executor& ex) {
  for (const std::string& line : ex.notices()) std::cerr << line << "\n";
}

}  // namespace edgeq::cli
