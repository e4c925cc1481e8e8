// Planning pass 4: buffer lifetimes, arena offsets (runtime/memory_plan.h) and each step's
// tensor pointers. External slots (graph inputs and outputs) are bound per run.
#pragma once
#include "runtime/plan.h"

namespace edgeq {

void plan_memory(Plan& p);

}  // namespace edgeq
