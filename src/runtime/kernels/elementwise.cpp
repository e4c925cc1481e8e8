#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the elementwise kernels land.
void register_elementwise_kernels() {}

}  // namespace edgeq
