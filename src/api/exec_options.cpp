#include "api/exec_options.h"

#include "core/error.h"
#include "core/option_range.h"

namespace edgeq {

void validate(const ExecOptions& o) {
  check_option("threads", o.threads, ranges::threads());
  (void)name(o.mode);  // a value no name stands for (a cast) throws
  (void)name(o.emulate);
  EDGEQ_CHECK(o.emulate == Int8Emulation::kNone || o.mode == ExecMode::kInt8, "emulate ",
              name(o.emulate), " needs exec int8 (simulate is the exact QDQ formula)");
}

ExecutorOptions executor_options(const ExecOptions& o) {
  validate(o);
  ExecutorOptions e;
  e.threads = o.threads;
  e.exec = o.mode;
  e.emulate = o.emulate;
  return e;
}

ExecutorOptions session_executor_options(const SessionOptions& o) {
  check_option("conf", o.conf, ranges::kFraction);
  check_option("iou", o.iou, ranges::kFraction);
  check_option("max_det", o.max_det, ranges::kMaxDet);
  return executor_options(o.exec);
}

}  // namespace edgeq
