#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the shape kernels land.
void register_shape_kernels() {}

}  // namespace edgeq
