#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the tensor kernels land.
void register_tensor_kernels() {}

}  // namespace edgeq
