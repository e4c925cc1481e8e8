// y[i] = table[x[i]] over bytes: the inner loop of integer kernels on 8-bit codes
// (kernels/codes.cpp, Concat re-encoding). 64 bytes at a time with AVX-512 VBMI byte permutes where
// the CPU has them (checked at run time), 32 at a time with AVX2 shuffles and blends, else one byte
// at a time; all give the same bytes. The level follows core/simd.h (EDGEQ_SIMD).
#pragma once
#include <cstdint>

namespace edgeq {

void byte_lut(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t table[256]);

}  // namespace edgeq
