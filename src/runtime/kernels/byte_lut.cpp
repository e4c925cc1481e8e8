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

// VBMI on top of the AVX-512 level (core/simd.h), so EDGEQ_SIMD=avx2 or scalar turns it off.
bool has_vbmi() {
  static const bool cpu = __builtin_cpu_supports("avx512vbmi");
  return cpu && simd_level() == SimdLevel::kAvx512;
}

}  // namespace

void byte_lut(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t table[256]) {
  if (n >= 64 && has_vbmi())
    byte_lut_vbmi(x, y, n, table);
  else
    byte_lut_scalar(x, y, n, table);
}

}  // namespace edgeq
