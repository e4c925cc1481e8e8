// The machine edgeq runs on: the process's memory and cores, which vector instructions its loops
// use, and which other CPU's int8 arithmetic a run may reproduce instead of its own exact integer
// sums.
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

// Whether `emulate` asks an int8 run to reproduce another CPU's arithmetic ("avx2": ONNX
// Runtime's int8 kernels on x86 without VNNI) rather than the exact integer sums ("none" or "").
// Throws edgeq::Error for an unknown name, calling the setting `setting` in the message.
bool emulates_int8(const std::string& emulate, const std::string& setting = "emulate");

}  // namespace edgeq
