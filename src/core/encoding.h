// Encoding: how the real values of one tensor (or one channel of it) map to integers.
//
// Conventions (checked against ONNX Runtime's quant_utils.compute_scale_zp and AIMET's
// to_qnn_encoding_dict):
// - `offset` is AIMET's / QNN's: real = (q + offset) * scale, with q on the UNSIGNED grid
//   [0, 2^bw - 1]. A signed storage type is that grid shifted by 2^(bw-1), so a symmetric
//   int8 encoding has offset -128 (as AIMET writes it) and ONNX zero_point 0, and an
//   asymmetric uint8 encoding has offset = -zero_point.
// - From a range [lo, hi] (as ONNX Runtime does): the range is widened to include 0, then
//     asymmetric: qmin..qmax = the storage type's range, scale = (hi - lo) / (qmax - qmin),
//                 zero_point = round(qmin - lo / scale) clamped to the type;
//     symmetric:  m = max(|lo|, |hi|); signed types use qmin = -(2^(bw-1) - 1), so
//                 scale = m / (2^(bw-1) - 1) and zero_point = 0; unsigned types use
//                 scale = 2m / (2^bw - 1) and zero_point = 2^(bw-1).
//   A range narrower than the smallest normal float gets scale 1 (ORT does the same).
// - Quantize: q = saturate(round_half_even(x / scale) + zero_point), the division in float as
//   ONNX QuantizeLinear and ORT compute it; dequantize: (q - zero_point) * scale.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace edgeq {

struct Encoding {
  int bitwidth = 8;
  bool symmetric = false;
  bool is_signed = false;  // storage type: int8/int16/int32 when true, uint8/uint16 when false
  float scale = 1.0f;
  int64_t offset = 0;  // AIMET convention, see above
  float min = 0.0f;    // representable range: offset * scale ..
  float max = 0.0f;    //   (2^bw - 1 + offset) * scale

  // Range of the storage type (e.g. -128..127 for int8, 0..255 for uint8).
  int64_t qmin() const;
  int64_t qmax() const;
  // ONNX QuantizeLinear zero point, in the storage type.
  int64_t zero_point() const;
  // ONNX storage type: kUInt8, kInt8, kUInt16, kInt16 or kInt32.
  DType dtype() const;

  int64_t quantize(float x) const;    // saturated, on the storage grid
  float dequantize(int64_t q) const;  // q on the storage grid
  float fake_quant(float x) const { return dequantize(quantize(x)); }

  // "u8 [-1.2, 3.4] scale 0.0176 zp 68" for messages and reports.
  std::string describe() const;
};

// Round half to even (banker's rounding), as ONNX QuantizeLinear specifies.
int64_t round_half_even(double x);

// Encoding for the range [lo, hi] (widened to include 0). Throws for non-finite bounds,
// lo > hi, or a bit width outside 2..32.
Encoding encoding_from_range(double lo, double hi, int bitwidth, bool symmetric, bool is_signed);
// True when [lo, hi] (widened to include 0) holds more than 0 but its step is below float's
// smallest normal: encoding_from_range then gives scale 1 and every value the zero point, which
// callers say (or refuse) naming the value. Throws as encoding_from_range does.
bool range_below_float_step(double lo, double hi, int bitwidth, bool symmetric, bool is_signed);
// Default signedness: symmetric -> signed, asymmetric -> unsigned.
inline Encoding encoding_from_range(double lo, double hi, int bitwidth, bool symmetric) {
  return encoding_from_range(lo, hi, bitwidth, symmetric, symmetric);
}

// Unsigned asymmetric encoding of [point, hi] (point < 0 < hi) with `point` itself a grid point
// (the zero point is the integer nearest below point's share of the range, so hi stays covered;
// a step at most one part in zero-point coarser than encoding_from_range's). std::nullopt when the
// range is so wide that a step exceeds |point|.
std::optional<Encoding> encoding_with_grid_point(double point, double hi, int bitwidth);

// From ONNX Q/DQ parameters. `symmetric` is inferred: zero_point 0 for signed types,
// 2^(bw-1) for unsigned ones.
Encoding encoding_from_onnx(float scale, int64_t zero_point, DType dtype);
// From AIMET / QNN parameters (offset on the unsigned grid). A symmetric encoding whose
// offset is -2^(bw-1) is stored signed; every other one unsigned.
Encoding encoding_from_aimet(int bitwidth, bool symmetric, float scale, int64_t offset);

// Helpers on quantized storage types.
bool is_quantized_dtype(DType t);  // uint8, int8, uint16, int16, int32
int dtype_bitwidth(DType t);
bool dtype_is_signed(DType t);
DType quantized_dtype(int bitwidth, bool is_signed);  // throws for other widths

}  // namespace edgeq
