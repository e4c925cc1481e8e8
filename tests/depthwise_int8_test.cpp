// kernels/depthwise_int8.h: edgeq's own int8 depthwise convolution against a plain integer
// reference, exactly (the sums are integers), with strides, dilations, uneven padding, channel
// counts that fill no vector, and every SIMD clone this CPU runs.
#include "runtime/kernels/depthwise_int8.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "core/simd.h"

namespace edgeq {
namespace {

struct DepthwiseCase {
  int64_t c, h, w, kh, kw, stride_y, stride_x, dil_y, dil_x, pad_t, pad_l, pad_b, pad_r;
};

ConvGeometry geometry(const DepthwiseCase& d) {
  ConvGeometry g;
  g.group = d.c;
  g.kernel = {d.kh, d.kw};
  g.strides = {d.stride_y, d.stride_x};
  g.dilations = {d.dil_y, d.dil_x};
  g.pad_l = {d.pad_t, d.pad_l};
  g.pad_r = {d.pad_b, d.pad_r};
  const int64_t oh = (d.h + d.pad_t + d.pad_b - ((d.kh - 1) * d.dil_y + 1)) / d.stride_y + 1;
  const int64_t ow = (d.w + d.pad_l + d.pad_r - ((d.kw - 1) * d.dil_x + 1)) / d.stride_x + 1;
  g.src_dims = {2, d.c, d.h, d.w};
  g.dst_dims = {2, d.c, oh, ow};
  return g;
}

TEST(DepthwiseInt8, SumsEqualAPlainIntegerReference) {
  const std::vector<DepthwiseCase> cases = {
      {16, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  {13, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {5, 10, 11, 5, 3, 1, 2, 1, 2, 2, 0, 1, 3}, {40, 6, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
      {1, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},   {33, 8, 7, 7, 7, 3, 1, 1, 1, 3, 3, 3, 3}};
  std::vector<SimdLevel> levels = {SimdLevel::kScalar};
  if (simd_supported() >= SimdLevel::kAvx2) levels.push_back(SimdLevel::kAvx2);
  if (simd_supported() >= SimdLevel::kAvx512) levels.push_back(SimdLevel::kAvx512);
  const SimdLevel before = simd_level();
  std::mt19937 rng(3);
  for (const DepthwiseCase& d : cases) {
    const ConvGeometry g = geometry(d);
    const int64_t n = g.src_dims[0], oh = g.dst_dims[2], ow = g.dst_dims[3];
    std::vector<uint8_t> x(size_t(n * d.h * d.w * d.c));  // NHWC
    for (auto& v : x) v = uint8_t(rng() % 256);
    Tensor w(DType::kInt8, {d.c, 1, d.kh, d.kw});
    for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(int(rng() % 256) - 128);
    const int32_t zp = int32_t(rng() % 256);
    // The reference: (x - zp) * w over the taps inside the image, in int64.
    std::vector<int64_t> want(size_t(n * oh * ow * d.c), 0);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t c = 0; c < d.c; ++c)
            for (int64_t ky = 0; ky < d.kh; ++ky)
              for (int64_t kx = 0; kx < d.kw; ++kx) {
                const int64_t iy = oy * d.stride_y - d.pad_t + ky * d.dil_y;
                const int64_t ix = ox * d.stride_x - d.pad_l + kx * d.dil_x;
                if (iy < 0 || ix < 0 || iy >= d.h || ix >= d.w) continue;
                want[size_t(((b * oh + oy) * ow + ox) * d.c + c)] +=
                    (int64_t(x[size_t(((b * d.h + iy) * d.w + ix) * d.c + c)]) - zp) *
                    w.data<int8_t>()[(c * d.kh + ky) * d.kw + kx];
              }
    for (SimdLevel level : levels) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + ", channels " + std::to_string(d.c));
      set_simd_level(level);
      DepthwiseInt8Sums sums(g, w);
      ASSERT_EQ(sums.row_values(), ow * d.c);
      std::vector<int32_t> row(size_t(sums.row_values()), -1);
      int64_t wrong = 0;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t oy = 0; oy < oh; ++oy) {
          sums.row(x.data(), zp, b, oy, row.data());
          for (int64_t i = 0; i < ow * d.c; ++i)
            wrong += row[size_t(i)] != want[size_t((b * oh + oy) * ow * d.c + i)];
        }
      EXPECT_EQ(wrong, 0);
    }
  }
  set_simd_level(before);
}

TEST(DepthwiseInt8, RefusesWhatIsNotDepthwise) {
  DepthwiseCase d{8, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  ConvGeometry g = geometry(d);
  EXPECT_TRUE(is_depthwise_conv(g));
  g.group = 4;
  EXPECT_FALSE(is_depthwise_conv(g));
  g.group = 8;
  g.dst_dims[1] = 16;  // a channel multiplier of 2
  EXPECT_FALSE(is_depthwise_conv(g));
  Tensor w(DType::kInt8, {16, 1, 3, 3});
  EXPECT_THROW(DepthwiseInt8Sums(g, w), Error);
}

}  // namespace
}  // namespace edgeq
