#include "run_options.h"

#include "choice_options.h"
#include "edgeq/choices.h"
#include "number_options.h"

namespace edgeq::cli {

void add_run_options(CLI::App* cmd, RunOptions& o) {
  add_number(cmd, "--threads", o.threads, ranges::threads(), "threads");
  cmd->add_option("--exec", o.exec,
                  "how a QDQ model runs: simulate (float with fake-quant steps, bit-identical to "
                  "its Q/DQ ops) or int8 (8-bit activations as codes on integer kernels)")
      ->check(choice_of<ExecMode>())
      ->capture_default_str();
  cmd->add_option("--emulate", o.emulate,
                  "with --exec int8: none (exact integer sums, the QDQ formula's) or avx2 (what "
                  "ONNX Runtime's int8 kernels compute on an x86 CPU without VNNI: products "
                  "added in int16 pairs that saturate), on any machine")
      ->check(choice_of<Int8Emulation>())
      ->capture_default_str();
}

ExecOptions exec_options(const RunOptions& o) {
  ExecOptions e;
  e.mode = parse<ExecMode>(o.exec, "--exec");
  e.emulate = parse<Int8Emulation>(o.emulate, "--emulate");
  e.threads = o.threads;
  validate(e);
  return e;
}

}  // namespace edgeq::cli
