// AVX2 runs hand-written intrinsics: the compiler's loop waits on the long dependency chain of each
// vector (the exp polynomial, three divisions), longer than the CPU looks ahead; split into passes
// over small blocks it overlaps iterations and takes less time per value, the output step included
// (measured in docs/status.md, issue 31). Each intrinsic is the scalar formula's operation in the
// same order (no fused multiply-add): the same bits, NaN and signed zeros included. AVX-512 and the
// baseline keep the compiler's clones of the scalar loop, the output step as a second pass.
#include "runtime/kernels/silu_fake_quant.h"

#include <algorithm>

#include "core/fast_math.h"
#include "core/simd.h"
#include "runtime/fake_quant.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EDGEQ_SILU_FQ_INTRINSICS 1
#endif

namespace edgeq {
namespace {

EDGEQ_ALWAYS_INLINE float silu_fake_quant_value(float x, float s, float lo, float hi) {
  return x * fake_quant(sigmoid_fast(x), s, lo, hi);
}

EDGEQ_ALWAYS_INLINE void silu_inner_body(const float* x, float* y, int64_t n, float s, float lo,
                                         float hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = silu_fake_quant_value(x[i], s, lo, hi);
}
EDGEQ_SIMD_CLONES(, void, silu_inner_span, silu_inner_body,
                  (const float* x, float* y, int64_t n, float s, float lo, float hi),
                  (x, y, n, s, lo, hi))

EDGEQ_ALWAYS_INLINE void silu_body(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = silu_fast(x[i]);
}
EDGEQ_SIMD_CLONES(, void, silu_span, silu_body, (const float* x, float* y, int64_t n), (x, y, n))

#ifdef EDGEQ_SILU_FQ_INTRINSICS

// fake_quant(): k = rint(x / s) + 0 (-0 -> +0); k > hi ? hi : k; k >= lo ? k : lo; k * s.
// _mm256_min_ps(a, b) is a < b ? a : b, so min(hi, k) keeps a NaN k, which the last select
// turns into lo, as the scalar code does.
EDGEQ_TARGET_AVX2 inline __m256 fake_quant8(__m256 x, __m256 s, __m256 lo, __m256 hi) {
  __m256 k = _mm256_add_ps(
      _mm256_round_ps(_mm256_div_ps(x, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      _mm256_setzero_ps());
  k = _mm256_min_ps(hi, k);
  return _mm256_mul_ps(_mm256_blendv_ps(lo, k, _mm256_cmp_ps(k, lo, _CMP_GE_OQ)), s);
}

// exp(-|x|) as exp_fast computes it: -|x| <= 0, so only the lower clamp acts, and
// max(c, a) keeps a NaN a.
EDGEQ_TARGET_AVX2 inline __m256 exp_neg_abs8(__m256 x) {
  const __m256 a = _mm256_max_ps(_mm256_set1_ps(-87.3f), _mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
  const __m256 shifter = _mm256_set1_ps(12582912.0f);
  const __m256 n = _mm256_sub_ps(
      _mm256_add_ps(_mm256_mul_ps(a, _mm256_set1_ps(1.44269504088896341f)), shifter), shifter);
  __m256 r = _mm256_sub_ps(a, _mm256_mul_ps(n, _mm256_set1_ps(0.693359375f)));
  r = _mm256_sub_ps(r, _mm256_mul_ps(n, _mm256_set1_ps(-2.12194440e-4f)));
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 p = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(1.9875691500e-4f), r),
                           _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, z), r), _mm256_set1_ps(1.0f));
  // 2^n; a NaN n converts to INT_MIN, whose bits here make 1.0f (p is NaN then, as in the scalar
  // code, which multiplies p by 1.0f).
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

// x * fake_quant(sigmoid(x)) (x * sigmoid(x) without kInner) from x and e = exp(-|x|):
// sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below.
template <bool kInner>
EDGEQ_TARGET_AVX2 inline __m256 silu_from_exp8(__m256 x, __m256 e, __m256 s, __m256 lo, __m256 hi) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 pos = _mm256_div_ps(one, _mm256_add_ps(one, e));
  const __m256 sig = _mm256_blendv_ps(_mm256_mul_ps(e, pos), pos,
                                      _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
  return _mm256_mul_ps(x, kInner ? fake_quant8(sig, s, lo, hi) : sig);
}

// Blocks of up to kBlock values, each in three passes through a buffer in L1 (the exps, the
// sigmoids and products, the output steps): each pass's loop is short enough that the CPU
// overlaps several of its iterations, which one long loop's dependency chain prevents.
template <bool kInner, bool kOuter>
EDGEQ_TARGET_AVX2 void silu_fq_avx2(const float* x, float* y, int64_t n,
                                    const FakeQuantParams& inner, const FakeQuantParams& outer) {
  constexpr int64_t kBlock = 256;
  alignas(32) float t[kBlock];
  const __m256 s = _mm256_set1_ps(inner.scale), lo = _mm256_set1_ps(inner.lo),
               hi = _mm256_set1_ps(inner.hi);
  const __m256 s2 = _mm256_set1_ps(outer.scale), lo2 = _mm256_set1_ps(outer.lo),
               hi2 = _mm256_set1_ps(outer.hi);
  int64_t i = 0;
  while (n - i >= 8) {
    const int64_t m = std::min(kBlock, (n - i) / 8 * 8);
    const float* xb = x + i;
    for (int64_t j = 0; j < m; j += 8)
      _mm256_store_ps(t + j, exp_neg_abs8(_mm256_loadu_ps(xb + j)));
    // y may be x: y's block is written only after the block's last read of x.
    float* to = kOuter ? t : y + i;
    for (int64_t j = 0; j < m; j += 8)
      _mm256_storeu_ps(to + j, silu_from_exp8<kInner>(_mm256_loadu_ps(xb + j),
                                                      _mm256_load_ps(t + j), s, lo, hi));
    if constexpr (kOuter)
      for (int64_t j = 0; j < m; j += 8)
        _mm256_storeu_ps(y + i + j, fake_quant8(_mm256_load_ps(t + j), s2, lo2, hi2));
    i += m;
  }
  for (; i < n; ++i) {
    const float v =
        kInner ? silu_fake_quant_value(x[i], inner.scale, inner.lo, inner.hi) : silu_fast(x[i]);
    y[i] = kOuter ? fake_quant(v, outer) : v;
  }
}

#endif

}  // namespace

void silu_fake_quant_span(const float* x, float* y, int64_t n, const FakeQuantParams& inner,
                          const FakeQuantParams& outer) {
#ifdef EDGEQ_SILU_FQ_INTRINSICS
  if (simd_level() == SimdLevel::kAvx2) {
    const int form = (inner.active() ? 2 : 0) + (outer.active() ? 1 : 0);
    switch (form) {
      case 3:
        return silu_fq_avx2<true, true>(x, y, n, inner, outer);
      case 2:
        return silu_fq_avx2<true, false>(x, y, n, inner, outer);
      case 1:
        return silu_fq_avx2<false, true>(x, y, n, inner, outer);
      default:
        return silu_fq_avx2<false, false>(x, y, n, inner, outer);
    }
  }
#endif
  if (inner.active())
    simd_pick(silu_inner_span_avx512, silu_inner_span_avx2, silu_inner_span_scalar)(
        x, y, n, inner.scale, inner.lo, inner.hi);
  else
    simd_pick(silu_span_avx512, silu_span_avx2, silu_span_scalar)(x, y, n);
  if (outer.active()) fake_quant_span(y, y, n, outer);
}

}  // namespace edgeq
