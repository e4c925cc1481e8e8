// Process-level measurements.
#pragma once
#include <cstddef>

namespace edgeq {

// Peak resident set size of this process so far (VmHWM), in bytes; 0 if unknown.
size_t peak_rss_bytes();
// The cores this process may run on (its CPU affinity, as OpenMP counts them): what "all cores"
// means for inference threads.
int available_cores();

}  // namespace edgeq
