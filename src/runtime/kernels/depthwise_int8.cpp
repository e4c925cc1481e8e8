#include "runtime/kernels/depthwise_int8.h"

#include <algorithm>

#include "core/error.h"
#include "core/simd.h"

namespace edgeq {
namespace {

// For `pixels` output pixels of one row and one tap: out[p * c + k] += (x[p * step + k] - zp) *
// w[k] over the channels k. Each product is exact in int16 (|x - zp| <= 255, |w| <= 128: at most
// 32640 in magnitude) and is widened to int32 alone (no two products share an int16).
EDGEQ_ALWAYS_INLINE void add_tap_body(const uint8_t* x, int64_t step, const int16_t* w, int32_t zp,
                                      int64_t c, int64_t pixels, int32_t* out) {
  for (int64_t p = 0; p < pixels; ++p, x += step, out += c) {
#pragma omp simd
    for (int64_t k = 0; k < c; ++k)
      out[k] += static_cast<int16_t>(static_cast<int16_t>(x[k] - zp) * w[k]);
  }
}
EDGEQ_SIMD_CLONES(, void, add_tap, add_tap_body,
                  (const uint8_t* x, int64_t step, const int16_t* w, int32_t zp, int64_t c,
                   int64_t pixels, int32_t* out),
                  (x, step, w, zp, c, pixels, out))

}  // namespace

bool is_depthwise_conv(const ConvGeometry& g) {
  return g.kernel.size() == 2 && g.group == g.src_dims[1] && g.group == g.dst_dims[1];
}

DepthwiseInt8Sums::DepthwiseInt8Sums(const ConvGeometry& g, const Tensor& weights)
    : channels_(g.dst_dims[1]),
      in_h_(g.src_dims[2]),
      in_w_(g.src_dims[3]),
      out_w_(g.dst_dims[3]),
      kh_(g.kernel[0]),
      kw_(g.kernel[1]),
      stride_y_(g.strides[0]),
      stride_x_(g.strides[1]),
      dil_y_(g.dilations[0]),
      dil_x_(g.dilations[1]),
      pad_t_(g.pad_l[0]),
      pad_l_(g.pad_l[1]) {
  EDGEQ_CHECK(is_depthwise_conv(g) && weights.dtype() == DType::kInt8 && weights.rank() == 4 &&
                  weights.dim(0) == channels_ && weights.dim(1) == 1,
              "a depthwise int8 convolution needs int8 weights [C, 1, kH, kW], one per channel");
  const int64_t taps = kh_ * kw_;
  taps_.resize(size_t(taps * channels_));
  const int8_t* w = weights.data<int8_t>();
  for (int64_t c = 0; c < channels_; ++c)
    for (int64_t t = 0; t < taps; ++t) taps_[size_t(t * channels_ + c)] = w[c * taps + t];
}

void DepthwiseInt8Sums::row(const uint8_t* x, int32_t zero_point, int64_t n, int64_t oy,
                            int32_t* out) const {
  const auto add = simd_pick(add_tap_avx512, add_tap_avx2, add_tap_scalar);
  const int64_t c = channels_;
  const uint8_t* image = x + n * in_h_ * in_w_ * c;
  std::fill(out, out + row_values(), 0);
  for (int64_t ky = 0; ky < kh_; ++ky) {
    const int64_t iy = oy * stride_y_ - pad_t_ + ky * dil_y_;
    if (iy < 0 || iy >= in_h_) continue;
    for (int64_t kx = 0; kx < kw_; ++kx) {
      const int16_t* w = taps_.data() + (ky * kw_ + kx) * c;
      // The output columns whose tap lies inside the image: ix = ox * stride - pad + kx * dil.
      const int64_t shift = kx * dil_x_ - pad_l_;
      if (in_w_ - 1 - shift < 0) continue;
      const int64_t first = shift >= 0 ? 0 : (-shift + stride_x_ - 1) / stride_x_;
      const int64_t last = std::min(out_w_, (in_w_ - 1 - shift) / stride_x_ + 1);
      if (first >= last) continue;
      add(image + (iy * in_w_ + first * stride_x_ + shift) * c, stride_x_ * c, w, zero_point, c,
          last - first, out + first * c);
    }
  }
}

}  // namespace edgeq
