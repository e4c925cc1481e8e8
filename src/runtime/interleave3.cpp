#include "runtime/interleave3.h"

#include <immintrin.h>

#include "core/simd.h"

namespace edgeq {
namespace {

template <typename T>
void interleave3_scalar(const T* p0, const T* p1, const T* p2, T* dst, int64_t n) {
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

// Bytes, 16 pixels a step (SSSE3, which every AVX2 CPU has): each 16-byte output vector ORs
// one byte shuffle of each plane, the other planes' bytes zeroed (index 0x80).
__attribute__((target("ssse3"))) void interleave3_bytes_ssse3(const uint8_t* p0, const uint8_t* p1,
                                                              const uint8_t* p2, uint8_t* dst,
                                                              int64_t n) {
  static const Indices<16> at;
  __m128i pick[3][3];  // [output vector][plane]
  for (int k = 0; k < 3; ++k)
    for (int q = 0; q < 3; ++q) {
      alignas(16) int8_t m[16];
      for (int p = 0; p < 16; ++p)
        m[p] = at.plane[k][p] == q ? static_cast<int8_t>(at.pixel[k][p]) : int8_t(-128);
      pick[k][q] = _mm_load_si128(reinterpret_cast<const __m128i*>(m));
    }
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p0 + i)),
                  b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p1 + i)),
                  c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p2 + i));
    for (int k = 0; k < 3; ++k) {
      const __m128i v = _mm_or_si128(
          _mm_or_si128(_mm_shuffle_epi8(a, pick[k][0]), _mm_shuffle_epi8(b, pick[k][1])),
          _mm_shuffle_epi8(c, pick[k][2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * i + 16 * k), v);
    }
  }
  interleave3_scalar(p0 + i, p1 + i, p2 + i, dst + 3 * i, n - i);
}

}  // namespace

void interleave3(const uint8_t* p0, const uint8_t* p1, const uint8_t* p2, uint8_t* dst, int64_t n) {
  simd_pick(interleave3_bytes_ssse3, interleave3_bytes_ssse3, interleave3_scalar<uint8_t>)(
      p0, p1, p2, dst, n);
}

void interleave3(const float* p0, const float* p1, const float* p2, float* dst, int64_t n) {
  simd_pick(interleave3_avx512, interleave3_avx2, interleave3_scalar<float>)(p0, p1, p2, dst, n);
}

}  // namespace edgeq
