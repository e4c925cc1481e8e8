// Process-level measurements.
#pragma once
#include <cstddef>

namespace edgeq {

// Peak resident set size of this process so far (VmHWM), in bytes; 0 if unknown.
size_t peak_rss_bytes();

}  // namespace edgeq
