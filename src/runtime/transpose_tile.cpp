#include "runtime/transpose_tile.h"

#include <immintrin.h>

#include "core/simd.h"

namespace edgeq {
namespace {

EDGEQ_ALWAYS_INLINE void transpose_elements(const uint32_t* src, int64_t src_stride, uint32_t* dst,
                                            int64_t dst_stride, int64_t r0, int64_t r1, int64_t c0,
                                            int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = r0; r < r1; ++r) dst[c * dst_stride + r] = src[r * src_stride + c];
}

void transpose_tile_scalar(const uint32_t* src, int64_t src_stride, uint32_t* dst,
                           int64_t dst_stride, int64_t rows, int64_t cols) {
  transpose_elements(src, src_stride, dst, dst_stride, 0, rows, 0, cols);
}

// 8 rows of 8 floats: pairs of rows interleaved, then quads, then the 128-bit halves swapped.
EDGEQ_TARGET_AVX2 EDGEQ_ALWAYS_INLINE void transpose8x8(const float* s, int64_t ss, float* d,
                                                        int64_t ds) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + i * ss);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(d + i * ds, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(d + (i + 4) * ds, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

EDGEQ_TARGET_AVX2 void transpose_tile_avx2(const uint32_t* src, int64_t src_stride, uint32_t* dst,
                                           int64_t dst_stride, int64_t rows, int64_t cols) {
  const int64_t rows8 = rows / 8 * 8, cols8 = cols / 8 * 8;
  for (int64_t r = 0; r < rows8; r += 8)
    for (int64_t c = 0; c < cols8; c += 8)
      transpose8x8(reinterpret_cast<const float*>(src + r * src_stride + c), src_stride,
                   reinterpret_cast<float*>(dst + c * dst_stride + r), dst_stride);
  transpose_elements(src, src_stride, dst, dst_stride, 0, rows8, cols8, cols);
  transpose_elements(src, src_stride, dst, dst_stride, rows8, rows, 0, cols);
}

}  // namespace

void transpose_tile(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride,
                    int64_t rows, int64_t cols) {
  // 8 x 8 blocks are as fast as memory allows at AVX2 already; AVX-512 runs the same code.
  simd_pick(transpose_tile_avx2, transpose_tile_avx2, transpose_tile_scalar)(
      src, src_stride, dst, dst_stride, rows, cols);
}

}  // namespace edgeq
