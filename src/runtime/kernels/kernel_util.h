// Small helpers shared by the kernel families: strides, index math, a vectorizable exp.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// Element counts above which loops are split across OpenMP threads.
constexpr int64_t kParallelNumel = 64 * 1024;

// Row-major element strides of a shape.
inline std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

inline int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

// Copies an N-D view into a dense buffer: dst[idx] = src[offset + sum(idx_d * src_strides_d)],
// with idx running over out_shape in row-major order. Strides are in elements (may be 0 or
// negative). Works for any element size (1, 2, 4 or 8 bytes).
void copy_strided(void* dst, const void* src, size_t elem_size, const Shape& out_shape,
                  const std::vector<int64_t>& src_strides, int64_t src_offset);

// exp(x) for float, about 1 ulp, written without calls or branches so loops vectorize.
inline float exp_fast(float x) {
  x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  // Round x*log2(e) to the nearest integer with the 1.5*2^23 trick (floorf does not vectorize
  // without -ffast-math).
  const float shifter = 12582912.0f;
  float n = (x * 1.44269504088896341f + shifter) - shifter;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * z + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  return p * __builtin_bit_cast(float, bits);
}

}  // namespace edgeq
