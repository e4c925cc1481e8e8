#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the conv kernels land.
void register_conv_kernels() {}

}  // namespace edgeq
