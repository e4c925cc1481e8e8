// The machine (edgeq/machine.h): core/simd.h's level.
#include "edgeq/machine.h"

#include "core/simd.h"

namespace edgeq {

std::string simd_in_use() {
  return simd_level_name(simd_level());
}

}  // namespace edgeq
