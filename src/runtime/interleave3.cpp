#include "runtime/interleave3.h"

#include <immintrin.h>

#include "core/simd.h"

namespace edgeq {
namespace {

void interleave3_scalar(const float* p0, const float* p1, const float* p2, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    dst[3 * i] = p0[i];
    dst[3 * i + 1] = p1[i];
    dst[3 * i + 2] = p2[i];
  }
}

// Output element e (of 3 x W per step) is plane e % 3's pixel e / 3.
template <int W>
struct Indices {
  int32_t pixel[3][W], plane[3][W];
  Indices() {
    for (int k = 0; k < 3; ++k)
      for (int p = 0; p < W; ++p) {
        const int e = W * k + p;
        pixel[k][p] = e / 3;
        plane[k][p] = e % 3;
      }
  }
};

// 16 pixels a step: for each output vector, one two-source permute picks its plane-0 and plane-1
// values, a second adds plane 2's.
__attribute__((target("avx512f"))) void interleave3_avx512(const float* p0, const float* p1,
                                                           const float* p2, float* dst, int64_t n) {
  static const Indices<16> at;
  __m512i first[3], second[3];
  for (int k = 0; k < 3; ++k) {
    alignas(64) int32_t f[16], s[16];
    for (int p = 0; p < 16; ++p) {
      const int j = at.pixel[k][p], plane = at.plane[k][p];
      f[p] = plane == 1 ? 16 + j : j;  // from p0 (0..15) or p1 (16..31)
      s[p] = plane == 2 ? 16 + j : p;  // keep, or from p2
    }
    first[k] = _mm512_load_si512(f);
    second[k] = _mm512_load_si512(s);
  }
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = _mm512_loadu_ps(p0 + i), b = _mm512_loadu_ps(p1 + i),
                 c = _mm512_loadu_ps(p2 + i);
    float* d = dst + 3 * i;
    for (int k = 0; k < 3; ++k)
      _mm512_storeu_ps(
          d + 16 * k, _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, first[k], b), second[k], c));
  }
  interleave3_scalar(p0 + i, p1 + i, p2 + i, dst + 3 * i, n - i);
}

// 8 pixels a step: each plane permuted into place, then blended by plane.
__attribute__((target("avx2"))) void interleave3_avx2(const float* p0, const float* p1,
                                                      const float* p2, float* dst, int64_t n) {
  static const Indices<8> at;
  __m256i index[3], is1[3], is2[3];
  for (int k = 0; k < 3; ++k) {
    alignas(32) int32_t x[8], m1[8], m2[8];
    for (int p = 0; p < 8; ++p) {
      x[p] = at.pixel[k][p];
      m1[p] = at.plane[k][p] == 1 ? -1 : 0;
      m2[p] = at.plane[k][p] == 2 ? -1 : 0;
    }
    index[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(x));
    is1[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(m1));
    is2[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(m2));
  }
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_loadu_ps(p0 + i), b = _mm256_loadu_ps(p1 + i),
                 c = _mm256_loadu_ps(p2 + i);
    float* d = dst + 3 * i;
    for (int k = 0; k < 3; ++k) {
      __m256 v = _mm256_permutevar8x32_ps(a, index[k]);
      v = _mm256_blendv_ps(v, _mm256_permutevar8x32_ps(b, index[k]), _mm256_castsi256_ps(is1[k]));
      v = _mm256_blendv_ps(v, _mm256_permutevar8x32_ps(c, index[k]), _mm256_castsi256_ps(is2[k]));
      _mm256_storeu_ps(d + 8 * k, v);
    }
  }
  interleave3_scalar(p0 + i, p1 + i, p2 + i, dst + 3 * i, n - i);
}

}  // namespace

void interleave3(const float* p0, const float* p1, const float* p2, float* dst, int64_t n) {
  simd_pick(interleave3_avx512, interleave3_avx2, interleave3_scalar)(p0, p1, p2, dst, n);
}

}  // namespace edgeq
