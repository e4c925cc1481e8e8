#include "core/encoding.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"

namespace edgeq {
namespace {

int64_t type_min(int bitwidth, bool is_signed) {
  return is_signed ? -(int64_t{1} << (bitwidth - 1)) : 0;
}
int64_t type_max(int bitwidth, bool is_signed) {
  return is_signed ? (int64_t{1} << (bitwidth - 1)) - 1 : (int64_t{1} << bitwidth) - 1;
}
// Shift from the storage grid to AIMET's unsigned grid: q_unsigned = q_storage + shift.
int64_t unsigned_shift(int bitwidth, bool is_signed) {
  return is_signed ? int64_t{1} << (bitwidth - 1) : 0;
}

void check_bitwidth(int bitwidth) {
  EDGEQ_CHECK(bitwidth >= 2 && bitwidth <= 32, "encoding bit width ", bitwidth,
              " is outside 2..32");
}

void fill_min_max(Encoding& e) {
  e.min = static_cast<float>(static_cast<double>(e.offset) * e.scale);
  double levels = std::ldexp(1.0, e.bitwidth) - 1.0;
  e.max = static_cast<float>((levels + static_cast<double>(e.offset)) * e.scale);
}

}  // namespace

int64_t round_half_even(double x) {
  // nearbyint honours the current rounding mode, which is round-to-nearest-even by default.
  return static_cast<int64_t>(std::nearbyint(x));
}

int64_t Encoding::qmin() const {
  return type_min(bitwidth, is_signed);
}
int64_t Encoding::qmax() const {
  return type_max(bitwidth, is_signed);
}

int64_t Encoding::zero_point() const {
  return -offset - unsigned_shift(bitwidth, is_signed);
}

DType Encoding::dtype() const {
  return quantized_dtype(bitwidth, is_signed);
}

int64_t Encoding::quantize(float x) const {
  if (std::isnan(x)) return std::clamp<int64_t>(zero_point(), qmin(), qmax());
  float r = std::nearbyint(x / scale);
  double q = static_cast<double>(r) + static_cast<double>(zero_point());
  q = std::min(std::max(q, static_cast<double>(qmin())), static_cast<double>(qmax()));
  return static_cast<int64_t>(q);
}

float Encoding::dequantize(int64_t q) const {
  return static_cast<float>(q - zero_point()) * scale;
}

std::string Encoding::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s%d [%g, %g] scale %g zp %lld%s", is_signed ? "s" : "u",
                bitwidth, min, max, scale, static_cast<long long>(zero_point()),
                symmetric ? " sym" : "");
  return buf;
}

namespace {

// The grid of [lo, hi] (widened to include 0; made symmetric when asked): its bounds, the codes it
// uses and its step (before the step is checked against float's).
struct RangeGrid {
  double lo, hi;
  int64_t qmin, qmax;
  double step;
};

RangeGrid range_grid(double lo, double hi, int bitwidth, bool symmetric, bool is_signed) {
  check_bitwidth(bitwidth);
  EDGEQ_CHECK(std::isfinite(lo) && std::isfinite(hi), "cannot encode the non-finite range [", lo,
              ", ", hi, "]");
  EDGEQ_CHECK(lo <= hi, "cannot encode the empty range [", lo, ", ", hi, "]");
  RangeGrid g{std::min(lo, 0.0), std::max(hi, 0.0), type_min(bitwidth, is_signed),
              type_max(bitwidth, is_signed), 0};
  if (symmetric) {
    double m = std::max(std::fabs(g.lo), std::fabs(g.hi));
    g.lo = -m;
    g.hi = m;
    if (is_signed) g.qmin = -g.qmax;  // -127..127 for int8, as ONNX Runtime
  }
  g.step = (g.hi - g.lo) / static_cast<double>(g.qmax - g.qmin);
  return g;
}

bool below_float_step(double step) {
  return !(static_cast<float>(step) >= FLT_MIN);
}

}  // namespace

bool range_below_float_step(double lo, double hi, int bitwidth, bool symmetric, bool is_signed) {
  const RangeGrid g = range_grid(lo, hi, bitwidth, symmetric, is_signed);
  return g.hi > g.lo && below_float_step(g.step);
}

Encoding encoding_from_range(double lo, double hi, int bitwidth, bool symmetric, bool is_signed) {
  const RangeGrid g = range_grid(lo, hi, bitwidth, symmetric, is_signed);
  lo = g.lo;
  Encoding e;
  e.bitwidth = bitwidth;
  e.symmetric = symmetric;
  e.is_signed = is_signed;
  const int64_t tmin = type_min(bitwidth, is_signed), tmax = type_max(bitwidth, is_signed);
  const int64_t qmin = g.qmin;
  const double scale = g.step;
  int64_t zp;
  if (below_float_step(scale)) {
    e.scale = 1.0f;
    zp =
        symmetric && !is_signed ? int64_t{1} << (bitwidth - 1) : std::clamp<int64_t>(0, tmin, tmax);
  } else {
    e.scale = static_cast<float>(scale);
    if (symmetric)
      zp = is_signed ? 0 : int64_t{1} << (bitwidth - 1);
    else
      zp = round_half_even(static_cast<double>(qmin) - lo / static_cast<double>(e.scale));
    zp = std::clamp(zp, tmin, tmax);
  }
  e.offset = -zp - unsigned_shift(bitwidth, is_signed);
  fill_min_max(e);
  return e;
}

std::optional<Encoding> encoding_with_grid_point(double point, double hi, int bitwidth) {
  check_bitwidth(bitwidth);
  EDGEQ_CHECK(std::isfinite(point) && std::isfinite(hi) && point < 0 && hi > 0,
              "a grid point encoding needs point < 0 < hi, not ", point, " and ", hi);
  const int64_t qmax = type_max(bitwidth, false);
  const auto zp =
      static_cast<int64_t>(std::floor(static_cast<double>(qmax) * -point / (hi - point)));
  if (zp < 1) return std::nullopt;
  Encoding e;
  e.bitwidth = bitwidth;
  e.symmetric = false;
  e.is_signed = false;
  e.scale = static_cast<float>(-point / static_cast<double>(zp));
  e.offset = -zp - unsigned_shift(bitwidth, false);
  fill_min_max(e);
  return e;
}

Encoding encoding_from_onnx(float scale, int64_t zero_point, DType dtype) {
  EDGEQ_CHECK(is_quantized_dtype(dtype), "quantized type ", dtype_name(dtype),
              " is not one of uint8/int8/uint16/int16/int32");
  EDGEQ_CHECK(std::isfinite(scale) && scale > 0, "quantization scale ", scale,
              " must be finite and positive");
  Encoding e;
  e.bitwidth = dtype_bitwidth(dtype);
  e.is_signed = dtype_is_signed(dtype);
  e.scale = scale;
  EDGEQ_CHECK(zero_point >= e.qmin() && zero_point <= e.qmax(), "zero point ", zero_point,
              " does not fit ", dtype_name(dtype));
  e.symmetric = e.is_signed ? zero_point == 0 : zero_point == (int64_t{1} << (e.bitwidth - 1));
  e.offset = -zero_point - unsigned_shift(e.bitwidth, e.is_signed);
  fill_min_max(e);
  return e;
}

Encoding encoding_from_aimet(int bitwidth, bool symmetric, float scale, int64_t offset) {
  check_bitwidth(bitwidth);
  EDGEQ_CHECK(std::isfinite(scale) && scale > 0, "quantization scale ", scale,
              " must be finite and positive");
  int64_t levels = (int64_t{1} << bitwidth) - 1;
  EDGEQ_CHECK(offset <= 0 && offset >= -levels, "offset ", offset, " is outside [", -levels,
              ", 0] for ", bitwidth, " bit");
  Encoding e;
  e.bitwidth = bitwidth;
  e.symmetric = symmetric;
  e.is_signed = symmetric && offset == -(int64_t{1} << (bitwidth - 1));
  e.scale = scale;
  e.offset = offset;
  fill_min_max(e);
  return e;
}

bool is_quantized_dtype(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16 ||
         t == DType::kInt32;
}

int dtype_bitwidth(DType t) {
  return static_cast<int>(dtype_size(t)) * 8;
}

bool dtype_is_signed(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

DType quantized_dtype(int bitwidth, bool is_signed) {
  switch (bitwidth) {
    case 8:
      return is_signed ? DType::kInt8 : DType::kUInt8;
    case 16:
      return is_signed ? DType::kInt16 : DType::kUInt16;
    case 32:
      if (is_signed) return DType::kInt32;
      break;
    default:
      break;
  }
  fail("no ONNX storage type for ", is_signed ? "signed " : "unsigned ", bitwidth,
       "-bit encodings (supported: 8 and 16 bit, and signed 32 bit)");
}

}  // namespace edgeq
