// The vectorized passes of Histogram (calib/histogram.h): scanning a batch, picking values within
// a range, computing bin indices, finding probes beyond tail cuts. Each comes in AVX-512, AVX2 and
// baseline clones, chosen by simd_level() (core/simd.h); every clone returns the same values.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

namespace edgeq::histogram_scan {

// One thread's part of a batch scan: min / max (ignoring NaN; +-Inf may become lo or hi, and then
// the caller makes a second, rare pass), the NaN count, and with a pivot the largest value <=
// pivot and the smallest >= pivot. Zeros are reported as +0 whatever their sign, so the result
// does not depend on which zero a vector lane met first.
struct Scan {
  float lo = INFINITY, hi = -INFINITY;
  uint64_t nan = 0;
  float below = -INFINITY, above = INFINITY;
};

// Scans x[0, n). with_pivot: fill below / above. with_min_max false: lo / hi may be left out (a
// sampled batch takes them from its tails). Values below cut_lo or above cut_hi are appended to
// *tails in order (NaN never, +-Inf may); tails may be null when there are no cuts.
Scan scan(const float* x, int64_t n, bool with_pivot, bool with_min_max, float pivot,
          float cut_lo = -INFINITY, float cut_hi = INFINITY, std::vector<float>* tails = nullptr);

// The values of v[0, m) within [lo, hi] (NaN never), written in order to out (may be v); returns
// how many.
int64_t within(const float* v, int64_t m, float lo, float hi, float* out);

// idx[i] = floor(v[i] * inv_width) - first for finite v[0, m) whose indices fit in int32;
// widens [lo, hi] to the indices written.
void bin_indices(const float* v, int64_t m, float inv_width, float first, int32_t* idx, int32_t& lo,
                 int32_t& hi);

// Bit k set when probe j + k, sample[(j + k) * step] for k < 16, is finite and below lo or above
// hi. step * 16 must stay below 2^31.
uint32_t probes_outside(const float* sample, int64_t step, int64_t j, float lo, float hi);

}  // namespace edgeq::histogram_scan
