// The executor options a public call's ExecOptions stand for (Session, compare, bench, infer),
// checked by validate(ExecOptions) with errors that name the options.
#pragma once
#include "edgeq/exec_options.h"
#include "edgeq/session.h"
#include "runtime/executor.h"

namespace edgeq {

ExecutorOptions executor_options(const ExecOptions& o);
// The same for a Session's options, conf, iou and max_det checked too (Session, detect).
ExecutorOptions session_executor_options(const SessionOptions& o);

}  // namespace edgeq
