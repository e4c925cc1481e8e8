#include "cli/run_options.h"

#include <iostream>

#include "cli/number_options.h"
#include "core/error.h"
#include "core/printable.h"

namespace edgeq::cli {

ExecutorOptions RunOptions::executor() const {
  ExecutorOptions opt;
  opt.threads = threads;
  opt.exec = parse_exec_mode(exec);
  opt.emulate = checked_emulation(emulate, opt.exec);
  return opt;
}

void add_run_options(CLI::App* cmd, RunOptions& o) {
  add_number(cmd, "--threads", o.threads, ranges::threads(), "threads");
  cmd->add_option("--exec", o.exec,
                  "how a QDQ model runs: simulate (float with fake-quant steps, bit-identical to "
                  "its Q/DQ ops) or int8 (8-bit activations as codes on integer kernels)")
      ->check(CLI::IsMember({"simulate", "int8"}))
      ->capture_default_str();
  add_emulate_option(cmd, o.emulate);
}

Int8Emulation checked_emulation(const std::string& emulate, ExecMode exec) {
  const Int8Emulation e = parse_int8_emulation(emulate, "--emulate");
  EDGEQ_CHECK(e == Int8Emulation::kNone || exec == ExecMode::kInt8, "--emulate ", emulate,
              " needs --exec int8 (--exec simulate is the exact QDQ formula)");
  return e;
}

void add_emulate_option(CLI::App* cmd, std::string& emulate) {
  cmd->add_option("--emulate", emulate,
                  "with --exec int8: none (exact integer sums, the QDQ formula's) or avx2 (what "
                  "ONNX Runtime's int8 kernels compute on an x86 CPU without VNNI: products "
                  "added in int16 pairs that saturate), on any machine")
      ->capture_default_str();
}

void print_notices(Executor& ex) {
  for (const std::string& line : ex.notices()) std::cerr << printable(line) << "\n";
}

}  // namespace edgeq::cli
