// An int8 depthwise convolution of our own, for QConv (qconv.cpp) on CPUs whose int8 kernels add
// products in saturating int16 pairs (runtime/int8_pairs.h): there oneDNN's AVX2 depthwise int8
// kernel is not exact on every weight, and the split weights it then needs ran it at 5-6% of the
// CPU's int8 peak (issue 49). Each channel is convolved with its own kernel (group = channels in
// = channels out), activations in NHWC; the sums are the exact integers
//   acc[n, oy, ox, c] = sum over the taps inside the image of (x[n, iy, ix, c] - zp) * w[c, ky, kx]
// (a padded tap reads the zero point's code and adds nothing). Every product fits int16
// (|x - zp| <= 255, |w| <= 128) and every sum int32, so each SIMD clone computes the same values:
// the sums oneDNN's exact kernels compute, requantized by QConv as before.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/kernels/conv_common.h"

namespace edgeq {

// Whether `g` is a depthwise convolution (group = channels in = channels out, 2-D; one channel
// alone counts).
bool is_depthwise_conv(const ConvGeometry& g);

class DepthwiseInt8Sums {
 public:
  // `weights`: int8 codes [C, 1, kH, kW] of the depthwise geometry `g`.
  DepthwiseInt8Sums(const ConvGeometry& g, const Tensor& weights);

  // The sums of one output row (image n, row oy) into out[ox * C + c], from the uint8 codes `x`
  // of the whole input (NHWC) whose zero point (the code of 0; 0 where the caller folded it into
  // its bias) is `zero_point`.
  void row(const uint8_t* x, int32_t zero_point, int64_t n, int64_t oy, int32_t* out) const;

  int64_t channels() const { return channels_; }
  int64_t row_values() const { return channels_ * out_w_; }

 private:
  std::vector<int16_t> taps_;  // [kH * kW][C]: each tap's weight for every channel
  int64_t channels_, in_h_, in_w_, out_w_;
  int64_t kh_, kw_, stride_y_, stride_x_, dil_y_, dil_x_, pad_t_, pad_l_;
};

}  // namespace edgeq
