// Float math written without calls or branches so loops vectorize. The executor's kernels and the
// calibrator (which derives statistics of Sigmoid / SiLU outputs from their inputs) share these,
// so both compute bit-identical values.
#pragma once
#include <cmath>
#include <cstdint>

namespace edgeq {

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
  // NaN (which the clamp lets through) must not reach the int conversion (undefined behaviour;
  // UBSan reported it); p is NaN then, and so is the result.
  int32_t bits = (static_cast<int32_t>(n == n ? n : 0.0f) + 127) << 23;
  return p * __builtin_bit_cast(float, bits);
}

// 1 / (1 + e^-x); 1 / (1 + e^-|x|) mirrored for negative x keeps full relative precision on both
// tails. Non-decreasing in x.
inline float sigmoid_fast(float x) {
  float e = exp_fast(-std::fabs(x));
  float pos = 1.0f / (1.0f + e);
  return x >= 0.0f ? pos : e * pos;
}

// x * sigmoid(x) as Mul(x, Sigmoid(x)) computes it. Falls from 0 at -inf to its minimum near
// kSiluArgMin, then rises without bound.
inline float silu_fast(float x) {
  return x * sigmoid_fast(x);
}
constexpr float kSiluArgMin = -1.2784645f;

}  // namespace edgeq
