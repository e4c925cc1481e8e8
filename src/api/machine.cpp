// The machine (edgeq/machine.h): core/simd.h's level and runtime/int8_pairs.h's emulations.
#include "edgeq/machine.h"

#include "core/simd.h"
#include "runtime/int8_pairs.h"

namespace edgeq {

std::string simd_in_use() {
  return simd_level_name(simd_level());
}

bool emulates_int8(const std::string& emulate, const std::string& setting) {
  return parse_int8_emulation(emulate, setting) != Int8Emulation::kNone;
}

}  // namespace edgeq
