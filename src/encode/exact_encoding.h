// Exact grids: an encoding under which every element of a constant round-trips bit for bit,
// Encoding::dequantize(quantize(x)) == x (+0 and -0 count as equal). Constants such as the YOLO
// decode's anchor grid (0.5..79.5: step 0.5), strides (8/16/32: step 8) and the DFL conv's
// weights (the integers 0..15: step 1) lie on a grid by construction; an encoding from their
// min / max moves them (docs/lessons.md, lesson 8), one on their own grid keeps them.
//
// Candidate steps, coarsest first; the first whose codes fit and under which every value
// round-trips is the answer:
//   the exact greatest common divisor of the values (a float is an integer times a power of two,
//     so g = 2^v * gcd(x / 2^v) for the smallest such v), making every value an integer multiple
//     of g;
//   the smallest nonzero |x| (values such as 0.1, 0.2, 0.3 that are its multiples only after
//     float rounding).
// Storage conventions are core/encoding.h's. Symmetric: zero point 0 for signed types with codes
// in +-(2^(bw-1) - 1) (weights), 2^(bw-1) for unsigned ones. Asymmetric: codes x / step must span
// at most 2^bw - 1 steps including 0, the zero point puts the lowest of min(x, 0) at the type's
// minimum (uint8 zero point 0 for non-negative values: anchors 0.5..79.5 -> codes 1..159).
#pragma once
#include <cstddef>
#include <optional>

#include "core/encoding.h"

namespace edgeq {

// Nothing when no candidate fits `bitwidth` (or `n` is 0). All-zero values get scale 1. Throws
// for NaN or Inf ("not finite") and, as encoding_from_aimet, for a bit width outside 2..32.
std::optional<Encoding> exact_encoding(const float* x, size_t n, int bitwidth, bool symmetric,
                                       bool is_signed);
// Default signedness, as encoding_from_range: symmetric -> signed, asymmetric -> unsigned.
inline std::optional<Encoding> exact_encoding(const float* x, size_t n, int bitwidth,
                                              bool symmetric) {
  return exact_encoding(x, n, bitwidth, symmetric, symmetric);
}

// Whether every x[i] comes back unchanged through `e`.
bool round_trips(const Encoding& e, const float* x, size_t n);

}  // namespace edgeq
