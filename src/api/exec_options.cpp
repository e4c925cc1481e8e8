#include "api/exec_options.h"

#include "core/error.h"
#include "runtime/int8_pairs.h"

namespace edgeq {

ExecutorOptions executor_options(const std::string& exec, const std::string& emulate, int threads) {
  EDGEQ_CHECK(threads >= 0, "threads must be >= 0, got ", threads);
  ExecutorOptions e;
  e.threads = threads;
  e.exec = parse_exec_mode(exec);
  e.emulate = parse_int8_emulation(emulate, "emulate");
  EDGEQ_CHECK(e.emulate == Int8Emulation::kNone || e.exec == ExecMode::kInt8, "emulate ", emulate,
              " needs exec int8 (simulate is the exact QDQ formula)");
  return e;
}

}  // namespace edgeq
