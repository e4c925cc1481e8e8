// The executor options a public call's exec / emulate / threads stand for (Session, compare,
// bench), checked with errors that name the options.
#pragma once
#include <string>

#include "runtime/executor.h"

namespace edgeq {

ExecutorOptions executor_options(const std::string& exec, const std::string& emulate, int threads);

}  // namespace edgeq
