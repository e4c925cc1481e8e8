#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the matmul kernels land.
void register_matmul_kernels() {}

}  // namespace edgeq
