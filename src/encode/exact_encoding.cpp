#include "encode/exact_encoding.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "core/error.h"

namespace edgeq {
namespace {

// |x| = a * 2^v with a odd (x finite and nonzero): v is the weight of the lowest set bit.
int lowest_bit_exponent(float x) {
  int e = 0;
  double m = std::frexp(std::fabs(static_cast<double>(x)), &e);  // |x| = m * 2^e, m in [0.5, 1)
  auto mantissa = static_cast<uint64_t>(std::ldexp(m, 24));      // exact: 24 significant bits
  return e - 24 + __builtin_ctzll(mantissa);
}

// The exact greatest common divisor of the nonzero values, or 0 when there are none or it is not
// a normal float.
float gcd_step(const float* x, size_t n) {
  int v = INT_MAX;
  for (size_t i = 0; i < n; ++i)
    if (x[i] != 0) v = std::min(v, lowest_bit_exponent(x[i]));
  if (v == INT_MAX) return 0;
  uint64_t g = 0;
  for (size_t i = 0; i < n; ++i) {
    if (x[i] == 0) continue;
    double a = std::ldexp(std::fabs(static_cast<double>(x[i])), -v);  // an exact integer
    if (a > 0x1p62) return 0;  // codes beyond any bit width: a = odd * 2^k, the odd part < 2^24
    g = std::gcd(g, static_cast<uint64_t>(a));
  }
  double step = std::ldexp(static_cast<double>(g), v);
  auto s = static_cast<float>(step);
  return s >= FLT_MIN && s <= FLT_MAX && static_cast<double>(s) == step ? s : 0;
}

// 0 when every value is zero.
float smallest_nonzero_magnitude(const float* x, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i)
    if (x[i] != 0 && (m == 0 || std::fabs(x[i]) < m)) m = std::fabs(x[i]);
  return m;
}

// The encoding with step `step` under the storage conventions, when the codes fit and every value
// round-trips.
std::optional<Encoding> on_grid(const float* x, size_t n, float step, int bitwidth, bool symmetric,
                                bool is_signed) {
  double kmin = 0, kmax = 0;  // codes relative to the zero point; 0 always representable
  for (size_t i = 0; i < n; ++i) {
    double k = std::nearbyint(static_cast<double>(x[i]) / step);
    kmin = std::min(kmin, k);
    kmax = std::max(kmax, k);
  }
  const double tmin = is_signed ? -std::ldexp(1.0, bitwidth - 1) : 0.0;
  const double tmax = is_signed ? std::ldexp(1.0, bitwidth - 1) - 1 : std::ldexp(1.0, bitwidth) - 1;
  double zp = 0;
  if (symmetric) {
    zp = is_signed ? 0.0 : std::ldexp(1.0, bitwidth - 1);
    const double lowest = is_signed ? -tmax : tmin;  // signed: -127..127, as weights
    if (kmin + zp < lowest || kmax + zp > tmax) return std::nullopt;
  } else {
    if (kmax - kmin > tmax - tmin) return std::nullopt;
    zp = tmin - kmin;
  }
  const double shift = is_signed ? std::ldexp(1.0, bitwidth - 1) : 0.0;
  Encoding e = encoding_from_aimet(bitwidth, symmetric, step, static_cast<int64_t>(-zp - shift));
  e.is_signed = is_signed;
  if (!round_trips(e, x, n)) return std::nullopt;
  return e;
}

}  // namespace

std::optional<Encoding> exact_encoding(const float* x, size_t n, int bitwidth, bool symmetric,
                                       bool is_signed) {
  for (size_t i = 0; i < n; ++i)
    EDGEQ_CHECK(std::isfinite(x[i]), "exact grid: value ", x[i], " at index ", i, " is not finite");
  if (n == 0) return std::nullopt;
  const float gcd = gcd_step(x, n), smallest = smallest_nonzero_magnitude(x, n);
  if (smallest == 0) return on_grid(x, n, 1.0f, bitwidth, symmetric, is_signed);  // all zero
  if (gcd != 0)
    if (auto e = on_grid(x, n, gcd, bitwidth, symmetric, is_signed)) return e;
  if (smallest != gcd && smallest >= FLT_MIN)
    return on_grid(x, n, smallest, bitwidth, symmetric, is_signed);
  return std::nullopt;
}

bool round_trips(const Encoding& e, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(e.dequantize(e.quantize(x[i])) == x[i])) return false;
  return true;
}

}  // namespace edgeq
