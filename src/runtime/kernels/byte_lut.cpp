#include "runtime/kernels/byte_lut.h"

#include <immintrin.h>

#include "core/simd.h"

namespace edgeq {
namespace {

void byte_lut_scalar(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

// Two 128-entry permutes (the code's low 7 bits index 2 x 64 table bytes) and a blend on the
// code's top bit.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void byte_lut_vbmi(const uint8_t* x,
                                                                          uint8_t* y, int64_t n,
                                                                          const uint8_t* table) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(x + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, v, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, v, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high));
  }
  byte_lut_scalar(x + i, y + i, n - i, table);
}

// Sixteen 16-entry shuffles (the code's low 4 bits index each 16 table bytes), joined by a tree of
// blends on the code's bits 4, 5, 6 and 7 (each moved to a byte's top bit, which blendv reads),
// depth first so that few registers are live (AVX2 has 16).
struct LutBits {
  __m256i lo, b4, b5, b6;
};
__attribute__((target("avx2"), always_inline)) inline __m256i lut16(const __m256i* t, int k,
                                                                    const LutBits& b) {
  return _mm256_shuffle_epi8(_mm256_loadu_si256(t + k), b.lo);
}
__attribute__((target("avx2"), always_inline)) inline __m256i lut32(const __m256i* t, int k,
                                                                    const LutBits& b) {
  return _mm256_blendv_epi8(lut16(t, k, b), lut16(t, k + 1, b), b.b4);
}
__attribute__((target("avx2"), always_inline)) inline __m256i lut64(const __m256i* t, int k,
                                                                    const LutBits& b) {
  return _mm256_blendv_epi8(lut32(t, k, b), lut32(t, k + 2, b), b.b5);
}
__attribute__((target("avx2"), always_inline)) inline __m256i lut128(const __m256i* t, int k,
                                                                     const LutBits& b) {
  return _mm256_blendv_epi8(lut64(t, k, b), lut64(t, k + 4, b), b.b6);
}

__attribute__((target("avx2"))) void byte_lut_avx2(const uint8_t* x, uint8_t* y, int64_t n,
                                                   const uint8_t* table) {
  alignas(32) __m256i t[16];
  for (int k = 0; k < 16; ++k)
    t[k] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
  const __m256i low_bits = _mm256_set1_epi8(0x0F);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    const LutBits b{_mm256_and_si256(v, low_bits), _mm256_slli_epi16(v, 3), _mm256_slli_epi16(v, 2),
                    _mm256_slli_epi16(v, 1)};
    const __m256i r = _mm256_blendv_epi8(lut128(t, 0, b), lut128(t, 8, b), v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), r);
  }
  byte_lut_scalar(x + i, y + i, n - i, table);
}

// VBMI on top of the AVX-512 level (core/simd.h), so EDGEQ_SIMD=avx2 or scalar turns it off.
bool has_vbmi() {
  static const bool cpu = __builtin_cpu_supports("avx512vbmi");
  return cpu && simd_level() == SimdLevel::kAvx512;
}

}  // namespace

void byte_lut(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t table[256]) {
  if (n >= 64 && has_vbmi())
    byte_lut_vbmi(x, y, n, table);
  else if (n >= 32 && simd_level() >= SimdLevel::kAvx2)
    byte_lut_avx2(x, y, n, table);
  else
    byte_lut_scalar(x, y, n, table);
}

}  // namespace edgeq
