#include "runtime/kernels/registry.h"

namespace edgeq {

// Placeholder until the quant kernels land.
void register_quant_kernels() {}

}  // namespace edgeq
