// Small helpers shared by the kernel families: strides, index math (fast math: core/fast_math.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/fast_math.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// A tensor's bytes, whatever its type (the data movement kernels copy bytes).
inline const char* bytes_of(const Tensor& t) {
  return static_cast<const char*>(t.raw());
}
inline char* bytes_of(Tensor& t) {
  return static_cast<char*>(t.raw());
}

// Element counts above which loops are split across OpenMP threads.
constexpr int64_t kParallelNumel = 64 * 1024;
// The same for loops over 8-bit codes doing a table lookup or a copy per byte.
constexpr int64_t kParallelBytes = 4 * 1024 * 1024;

// Elementwise loops work in chunks of this many values (in cache while a chunk's epilogue runs).
constexpr int64_t kChunk = 16 * 1024;

// Runs body(begin, end) over [0, n) in chunks of kChunk, in parallel when n is above
// `parallel_above` (cheap per-element work, such as byte tables, wants a higher bar: starting
// threads costs more than it saves).
template <typename Body>
void for_chunks(int64_t n, Body body, int64_t parallel_above = kParallelNumel) {
  if (n <= parallel_above) {
    body(0, n);
    return;
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for
  for (int64_t c = 0; c < chunks; ++c) body(c * kChunk, std::min(n, (c + 1) * kChunk));
}

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

}  // namespace edgeq
