// Encodings of whole tensors (per tensor or per channel) and the quantization of constant
// tensors: weights (symmetric, max-abs per channel by default, exact grids kept) and biases (int32,
// scale = input scale * weight scale of the channel, zero point 0).
#pragma once
#include <cstdint>
#include <vector>

#include "core/encoding.h"
#include "core/tensor.h"

namespace edgeq {

// One value's encoding: a single Encoding (per tensor) or one per channel along `axis`; or,
// when `is_float`, none: the value stays floating point at `float_bitwidth` (AIMET dtype FLOAT).
struct TensorEncoding {
  std::vector<Encoding> channels;
  int64_t axis = -1;  // channel axis of a per-channel encoding; -1 for per tensor
  bool is_float = false;
  int float_bitwidth = 32;

  bool per_channel() const { return axis >= 0; }
  const Encoding& at(size_t c) const { return channels.at(per_channel() ? c : 0); }
  // Convenience for per-tensor encodings.
  static TensorEncoding per_tensor(Encoding e) { return {{e}, -1, false, 32}; }
  static TensorEncoding floating(int bitwidth) { return {{}, -1, true, bitwidth}; }
};

// Symmetric signed encoding of a float weight from its max |w|: per channel along `axis`
// (axis 0 for Conv / Gemm(transB) weights) when `per_channel`, else one for the tensor. A channel
// that max-abs would move but whose values lie on an exact grid keeps them: the tensor's max-abs
// grid when that one is exact for the channel (weights that were quantized per tensor before
// export), else the channel's own exact grid (encode/exact_encoding.h; e.g. the DFL conv's
// integers 0..15 get scale 1 instead of 15/127, which turns 1 into 0.945). Throws naming `what`
// when the tensor holds NaN or Inf.
TensorEncoding weight_encoding(const Tensor& w, bool per_channel, int64_t axis, int bitwidth,
                               const std::string& what);

// The values of channel `c` along `axis` of a float tensor (every value when axis < 0), in memory
// order: what one Encoding of a TensorEncoding covers.
std::vector<float> channel_values(const Tensor& t, int64_t axis, int64_t c);

// int32 bias encoding: scale_c = input.scale * weight.at(c).scale, zero point 0. Per channel
// (axis 0) when the weight encoding is.
TensorEncoding bias_encoding(const Encoding& input, const TensorEncoding& weight, int64_t channels);

// Quantizes a float tensor to the encoding's storage type (round half to even, saturate).
Tensor quantize_tensor(const Tensor& x, const TensorEncoding& enc);
// The inverse: storage type -> float32.
Tensor dequantize_tensor(const Tensor& q, const TensorEncoding& enc);

}  // namespace edgeq
