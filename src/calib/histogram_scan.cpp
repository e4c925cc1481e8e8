#include "calib/histogram_scan.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/simd.h"

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 min / max intrinsics pass an undefined vector as their unused mask source,
// which -W(maybe-)uninitialized reports at every use.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace edgeq::histogram_scan {
namespace {

// ---- baseline: also the tail of every vector loop ------------------------------------------

template <bool kPivot>
EDGEQ_ALWAYS_INLINE void scan_rest(Scan& s, const float* x, int64_t i, int64_t n, float pivot,
                                   float cut_lo, float cut_hi, std::vector<float>* tails) {
  for (; i < n; ++i) {
    float v = x[i];
    s.lo = v < s.lo ? v : s.lo;
    s.hi = v > s.hi ? v : s.hi;
    s.nan += v != v;
    if ((v < cut_lo || v > cut_hi) && tails) tails->push_back(v);
    if constexpr (kPivot) {
      if (v <= pivot && v > s.below) s.below = v;
      if (v >= pivot && v < s.above) s.above = v;
    }
  }
}

// -0 -> +0 (x + 0.0f is +0 for either zero and x otherwise).
Scan canonical(Scan s) {
  s.lo += 0.0f;
  s.hi += 0.0f;
  s.below += 0.0f;
  s.above += 0.0f;
  return s;
}

template <bool kPivot, bool kMinMax>
Scan scan_scalar(const float* x, int64_t n, float pivot, float cut_lo, float cut_hi,
                 std::vector<float>* tails) {
  Scan s;
  scan_rest<kPivot>(s, x, 0, n, pivot, cut_lo, cut_hi, tails);
  return s;
}

int64_t within_rest(const float* v, int64_t i, int64_t m, float lo, float hi, float* out,
                    int64_t k) {
  for (; i < m; ++i)
    if (v[i] >= lo && v[i] <= hi) out[k++] = v[i];
  return k;
}

int64_t within_scalar(const float* v, int64_t m, float lo, float hi, float* out) {
  return within_rest(v, 0, m, lo, hi, out, 0);
}

EDGEQ_ALWAYS_INLINE void bin_indices_rest(const float* v, int64_t i, int64_t m, float inv_width,
                                          float first, int32_t* idx, int32_t& lo, int32_t& hi) {
  for (; i < m; ++i) {
    idx[i] = static_cast<int32_t>(std::floor(v[i] * inv_width) - first);
    lo = std::min(lo, idx[i]);
    hi = std::max(hi, idx[i]);
  }
}

void bin_indices_scalar(const float* v, int64_t m, float inv_width, float first, int32_t* idx,
                        int32_t& lo, int32_t& hi) {
  bin_indices_rest(v, 0, m, inv_width, first, idx, lo, hi);
}

uint32_t probes_outside_scalar(const float* sample, int64_t step, int64_t j, float lo, float hi) {
  uint32_t out = 0;
  for (int k = 0; k < 16; ++k) {
    const float v = sample[(j + k) * step];
    if (std::isfinite(v) && (v < lo || v > hi)) out |= 1u << k;
  }
  return out;
}

// ---- AVX2 ----------------------------------------------------------------------------------

// For _mm256_min_ps / max_ps a NaN first operand yields the second, and comparisons with NaN are
// false, so NaN never enters min, max, below or above.
template <bool kPivot, bool kMinMax>
EDGEQ_TARGET_AVX2 Scan scan_avx2(const float* x, int64_t n, float pivot, float cut_lo, float cut_hi,
                                 std::vector<float>* tails) {
  Scan s;
  int64_t i = 0;
  const __m256 p = _mm256_set1_ps(pivot), pinf = _mm256_set1_ps(INFINITY),
               ninf = _mm256_set1_ps(-INFINITY), cl = _mm256_set1_ps(cut_lo),
               ch = _mm256_set1_ps(cut_hi);
  __m256 lo0 = pinf, lo1 = pinf, hi0 = ninf, hi1 = ninf, below = ninf, above = pinf;
  __m256i nan0 = _mm256_setzero_si256(), nan1 = nan0;  // -1 per NaN, per lane
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    lo0 = _mm256_min_ps(a, lo0);
    hi0 = _mm256_max_ps(a, hi0);
    lo1 = _mm256_min_ps(b, lo1);
    hi1 = _mm256_max_ps(b, hi1);
    nan0 = _mm256_add_epi32(nan0, _mm256_castps_si256(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)));
    nan1 = _mm256_add_epi32(nan1, _mm256_castps_si256(_mm256_cmp_ps(b, b, _CMP_UNORD_Q)));
    const int t = _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(a, cl, _CMP_LT_OQ),
                                                  _mm256_cmp_ps(a, ch, _CMP_GT_OQ))) |
                  _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(b, cl, _CMP_LT_OQ),
                                                  _mm256_cmp_ps(b, ch, _CMP_GT_OQ)))
                      << 8;
    if (__builtin_expect(t != 0, 0))
      for (int k = 0; k < 16; ++k)
        if (t & (1 << k)) tails->push_back(x[i + k]);  // t is only set with cuts, and tails
    if constexpr (kPivot) {
      for (__m256 v : {a, b}) {
        below = _mm256_max_ps(_mm256_blendv_ps(ninf, v, _mm256_cmp_ps(v, p, _CMP_LE_OQ)), below);
        above = _mm256_min_ps(_mm256_blendv_ps(pinf, v, _mm256_cmp_ps(v, p, _CMP_GE_OQ)), above);
      }
    }
  }
  alignas(32) float lo[8], hi[8], bl[8], ab[8];
  alignas(32) int32_t nan[8];
  _mm256_store_ps(lo, _mm256_min_ps(lo0, lo1));
  _mm256_store_ps(hi, _mm256_max_ps(hi0, hi1));
  _mm256_store_ps(bl, below);
  _mm256_store_ps(ab, above);
  _mm256_store_si256(reinterpret_cast<__m256i*>(nan), _mm256_add_epi32(nan0, nan1));
  for (int k = 0; k < 8; ++k) {
    s.lo = std::min(s.lo, lo[k]);
    s.hi = std::max(s.hi, hi[k]);
    s.below = std::max(s.below, bl[k]);
    s.above = std::min(s.above, ab[k]);
    s.nan += static_cast<uint64_t>(-static_cast<int64_t>(nan[k]));
  }
  scan_rest<kPivot>(s, x, i, n, pivot, cut_lo, cut_hi, tails);
  return s;
}

EDGEQ_TARGET_AVX2 void bin_indices_avx2(const float* v, int64_t m, float inv_width, float first,
                                        int32_t* idx, int32_t& lo_out, int32_t& hi_out) {
  int64_t i = 0;
  const __m256 inv = _mm256_set1_ps(inv_width), f = _mm256_set1_ps(first);
  __m256i lo = _mm256_set1_epi32(lo_out), hi = _mm256_set1_epi32(hi_out);
  for (; i + 8 <= m; i += 8) {
    __m256 b = _mm256_sub_ps(_mm256_floor_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), inv)), f);
    __m256i k = _mm256_cvttps_epi32(b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + i), k);
    lo = _mm256_min_epi32(lo, k);
    hi = _mm256_max_epi32(hi, k);
  }
  alignas(32) int32_t l[8], h[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
  for (int k = 0; k < 8; ++k) {
    lo_out = std::min(lo_out, l[k]);
    hi_out = std::max(hi_out, h[k]);
  }
  bin_indices_rest(v, i, m, inv_width, first, idx, lo_out, hi_out);
}

// ---- AVX-512 -------------------------------------------------------------------------------

// Horizontal min / max of 16 lanes (the _mm512_reduce_* helpers of GCC 12 warn spuriously).
template <typename T, typename V>
EDGEQ_TARGET_AVX512 EDGEQ_ALWAYS_INLINE T lane_min(V v) {
  T a[16];
  std::memcpy(a, &v, sizeof(a));
  T m = a[0];
  for (int k = 1; k < 16; ++k) m = a[k] < m ? a[k] : m;
  return m;
}
template <typename T, typename V>
EDGEQ_TARGET_AVX512 EDGEQ_ALWAYS_INLINE T lane_max(V v) {
  T a[16];
  std::memcpy(a, &v, sizeof(a));
  T m = a[0];
  for (int k = 1; k < 16; ++k) m = a[k] > m ? a[k] : m;
  return m;
}

// kMinMax false: the loop skips lo / hi.
template <bool kPivot, bool kMinMax>
EDGEQ_TARGET_AVX512 Scan scan_avx512(const float* x, int64_t n, float pivot, float cut_lo,
                                     float cut_hi, std::vector<float>* tails) {
  Scan s;
  int64_t i = 0;
  const __m512 p = _mm512_set1_ps(pivot), cl = _mm512_set1_ps(cut_lo), ch = _mm512_set1_ps(cut_hi);
  __m512 lo0 = _mm512_set1_ps(INFINITY), lo1 = lo0, hi0 = _mm512_set1_ps(-INFINITY), hi1 = hi0;
  __m512 below = hi0, above = lo0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    if constexpr (kMinMax) {
      lo0 = _mm512_min_ps(a, lo0);
      hi0 = _mm512_max_ps(a, hi0);
      lo1 = _mm512_min_ps(b, lo1);
      hi1 = _mm512_max_ps(b, hi1);
    }
    // Beyond a cut, or NaN ("not >= cut_lo" holds for NaN): both rare, sorted out in the branch.
    const __mmask16 ta =
        _mm512_cmp_ps_mask(a, cl, _CMP_NGE_UQ) | _mm512_cmp_ps_mask(a, ch, _CMP_GT_OQ);
    const __mmask16 tb =
        _mm512_cmp_ps_mask(b, cl, _CMP_NGE_UQ) | _mm512_cmp_ps_mask(b, ch, _CMP_GT_OQ);
    if (__builtin_expect((ta | tb) != 0, 0)) {
      const __mmask16 na = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q),
                      nb = _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
      s.nan += static_cast<uint64_t>(__builtin_popcount(na) + __builtin_popcount(nb));
      const __mmask16 ka = ta & ~na, kb = tb & ~nb;
      if (tails && (ka | kb)) {
        alignas(64) float kept[32];
        _mm512_mask_compressstoreu_ps(kept, ka, a);
        const int ca = __builtin_popcount(ka);
        _mm512_mask_compressstoreu_ps(kept + ca, kb, b);
        tails->insert(tails->end(), kept, kept + ca + __builtin_popcount(kb));
      }
    }
    if constexpr (kPivot) {
      for (__m512 v : {a, b}) {
        below = _mm512_mask_max_ps(below, _mm512_cmp_ps_mask(v, p, _CMP_LE_OQ), v, below);
        above = _mm512_mask_min_ps(above, _mm512_cmp_ps_mask(v, p, _CMP_GE_OQ), v, above);
      }
    }
  }
  s.lo = lane_min<float>(_mm512_min_ps(lo0, lo1));
  s.hi = lane_max<float>(_mm512_max_ps(hi0, hi1));
  if constexpr (kPivot) {
    s.below = lane_max<float>(below);
    s.above = lane_min<float>(above);
  }
  scan_rest<kPivot>(s, x, i, n, pivot, cut_lo, cut_hi, tails);
  return s;
}

EDGEQ_TARGET_AVX512 int64_t within_avx512(const float* v, int64_t m, float lo, float hi,
                                          float* out) {
  int64_t k = 0, i = 0;
  const __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
  for (; i + 16 <= m; i += 16) {
    __m512 x = _mm512_loadu_ps(v + i);
    __mmask16 in = _mm512_cmp_ps_mask(x, l, _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, h, _CMP_LE_OQ);
    _mm512_mask_compressstoreu_ps(out + k, in, x);
    k += __builtin_popcount(in);
  }
  return within_rest(v, i, m, lo, hi, out, k);
}

EDGEQ_TARGET_AVX512 void bin_indices_avx512(const float* v, int64_t m, float inv_width, float first,
                                            int32_t* idx, int32_t& lo_out, int32_t& hi_out) {
  int64_t i = 0;
  const __m512 inv = _mm512_set1_ps(inv_width), f = _mm512_set1_ps(first);
  __m512i lo = _mm512_set1_epi32(lo_out), hi = _mm512_set1_epi32(hi_out);
  for (; i + 16 <= m; i += 16) {
    __m512 b = _mm512_sub_ps(
        _mm512_roundscale_ps(_mm512_mul_ps(_mm512_loadu_ps(v + i), inv), _MM_FROUND_TO_NEG_INF), f);
    __m512i k = _mm512_cvttps_epi32(b);
    _mm512_storeu_si512(idx + i, k);
    lo = _mm512_min_epi32(lo, k);
    hi = _mm512_max_epi32(hi, k);
  }
  lo_out = std::min(lo_out, lane_min<int32_t>(lo));
  hi_out = std::max(hi_out, lane_max<int32_t>(hi));
  bin_indices_rest(v, i, m, inv_width, first, idx, lo_out, hi_out);
}

EDGEQ_TARGET_AVX512 uint32_t probes_outside_avx512(const float* sample, int64_t step, int64_t j,
                                                   float lo, float hi) {
  const __m512i lanes =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int32_t>(step)));
  const __m512 v = _mm512_i32gather_ps(lanes, sample + j * step, 4);
  const __mmask16 finite = static_cast<__mmask16>(~_mm512_fpclass_ps_mask(v, 0x99));
  return finite & (_mm512_cmp_ps_mask(v, _mm512_set1_ps(lo), _CMP_LT_OQ) |
                   _mm512_cmp_ps_mask(v, _mm512_set1_ps(hi), _CMP_GT_OQ));
}

template <bool kPivot, bool kMinMax>
Scan scan_at(const float* x, int64_t n, float pivot, float cut_lo, float cut_hi,
             std::vector<float>* tails) {
  return simd_pick(scan_avx512<kPivot, kMinMax>, scan_avx2<kPivot, kMinMax>,
                   scan_scalar<kPivot, kMinMax>)(x, n, pivot, cut_lo, cut_hi, tails);
}

}  // namespace

Scan scan(const float* x, int64_t n, bool with_pivot, bool with_min_max, float pivot, float cut_lo,
          float cut_hi, std::vector<float>* tails) {
  Scan s = with_pivot ? (with_min_max ? scan_at<true, true>(x, n, pivot, cut_lo, cut_hi, tails)
                                      : scan_at<true, false>(x, n, pivot, cut_lo, cut_hi, tails))
                      : (with_min_max ? scan_at<false, true>(x, n, pivot, cut_lo, cut_hi, tails)
                                      : scan_at<false, false>(x, n, pivot, cut_lo, cut_hi, tails));
  return canonical(s);
}

int64_t within(const float* v, int64_t m, float lo, float hi, float* out) {
  return simd_pick(within_avx512, within_scalar, within_scalar)(v, m, lo, hi, out);
}

void bin_indices(const float* v, int64_t m, float inv_width, float first, int32_t* idx, int32_t& lo,
                 int32_t& hi) {
  simd_pick(bin_indices_avx512, bin_indices_avx2, bin_indices_scalar)(v, m, inv_width, first, idx,
                                                                      lo, hi);
}

uint32_t probes_outside(const float* sample, int64_t step, int64_t j, float lo, float hi) {
  return simd_pick(probes_outside_avx512, probes_outside_scalar, probes_outside_scalar)(
      sample, step, j, lo, hi);
}

}  // namespace edgeq::histogram_scan
