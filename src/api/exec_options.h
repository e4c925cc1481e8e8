// The executor options a public call's exec / emulate / threads stand for (Session, compare,
// bench), checked with errors that name the options.
#pragma once
#include <string>

#include "edgeq/session.h"
#include "runtime/executor.h"

namespace edgeq {

ExecutorOptions executor_options(const std::string& exec, const std::string& emulate, int threads);
// The same for a Session's options, conf, iou and max_det checked too (Session, detect).
ExecutorOptions session_executor_options(const SessionOptions& o);

}  // namespace edgeq
