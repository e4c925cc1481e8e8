#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the softmax kernels land.
void register_softmax_kernels() {}

}  // namespace edgeq
