#include "run_options.h"

#include "edgeq/error.h"
#include "edgeq/machine.h"
#include "number_options.h"

namespace edgeq::cli {

void add_run_options(CLI::App* cmd, RunOptions& o) {
  add_number(cmd, "--threads", o.threads, ranges::threads(), "threads");
  cmd->add_option("--exec", o.exec,
                  "how a QDQ model runs: simulate (float with fake-quant steps, bit-identical to "
                  "its Q/DQ ops) or int8 (8-bit activations as codes on integer kernels)")
      ->check(CLI::IsMember({"simulate", "int8"}))
      ->capture_default_str();
  add_emulate_option(cmd, o.emulate);
}

void check_emulation(const std::string& emulate, const std::string& exec) {
  EDGEQ_CHECK(!emulates_int8(emulate, "--emulate") || exec == "int8", "--emulate ", emulate,
              " needs --exec int8 (--exec simulate is the exact QDQ formula)");
}

void add_emulate_option(CLI::App* cmd, std::string& emulate) {
  cmd->add_option("--emulate", emulate,
                  "with --exec int8: none (exact integer sums, the QDQ formula's) or avx2 (what "
                  "ONNX Runtime's int8 kernels compute on an x86 CPU without VNNI: products "
                  "added in int16 pairs that saturate), on any machine")
      ->capture_default_str();
}

}  // namespace edgeq::cli
