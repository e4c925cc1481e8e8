// The machine edgeq runs on: the process's memory and cores, and which vector instructions its
// loops use. (Which other CPU's int8 arithmetic a run may reproduce: edgeq/exec_options.h.)
#pragma once
#include <cstddef>
#include <string>

namespace edgeq {

// Peak resident set size of this process so far (VmHWM), in bytes; 0 if unknown.
size_t peak_rss_bytes();
// The cores this process may run on (its CPU affinity, as OpenMP counts them): what "all cores"
// means for inference threads.
int available_cores();

// The instruction set the hand-vectorized loops use: "avx512", "avx2" or "scalar" (the one the
// environment variable EDGEQ_SIMD names, else the best this CPU has). Every level computes the
// same bits. Throws edgeq::Error for an unknown EDGEQ_SIMD or a level this CPU lacks.
std::string simd_in_use();

}  // namespace edgeq
