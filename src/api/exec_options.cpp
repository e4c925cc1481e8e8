#include "api/exec_options.h"

#include "core/error.h"
#include "core/option_range.h"
#include "runtime/int8_pairs.h"

namespace edgeq {

ExecutorOptions executor_options(const std::string& exec, const std::string& emulate, int threads) {
  ExecutorOptions e;
  e.threads = check_option("threads", threads, ranges::threads());
  e.exec = parse_exec_mode(exec);
  e.emulate = parse_int8_emulation(emulate, "emulate");
  EDGEQ_CHECK(e.emulate == Int8Emulation::kNone || e.exec == ExecMode::kInt8, "emulate ", emulate,
              " needs exec int8 (simulate is the exact QDQ formula)");
  return e;
}

ExecutorOptions session_executor_options(const SessionOptions& o) {
  check_option("conf", o.conf, ranges::kFraction);
  check_option("iou", o.iou, ranges::kFraction);
  check_option("max_det", o.max_det, ranges::kMaxDet);
  return executor_options(o.exec, o.emulate, o.threads);
}

}  // namespace edgeq
