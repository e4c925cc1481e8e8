#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the resize kernels land.
void register_resize_kernels() {}

}  // namespace edgeq
