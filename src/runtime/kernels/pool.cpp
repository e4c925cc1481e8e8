#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the pool kernels land.
void register_pool_kernels() {}

}  // namespace edgeq
