// kernels/pad_codes.h: a convolution's input codes with the padding written out, in NHWC and the
// plain layout, with uneven pads, against a reference written from the definition.
#include "runtime/kernels/pad_codes.h"

#include <gtest/gtest.h>

#include <random>

namespace edgeq {
namespace {

ConvGeometry geometry(int64_t n, int64_t c, int64_t h, int64_t w, std::vector<int64_t> pad_l,
                      std::vector<int64_t> pad_r) {
  ConvGeometry g;
  g.kernel = {3, 3};
  g.strides = g.dilations = {1, 1};
  g.pad_l = pad_l;
  g.pad_r = pad_r;
  g.src_dims = {n, c, h, w};
  g.dst_dims = {n, c, h + pad_l[0] + pad_r[0] - 2, w + pad_l[1] + pad_r[1] - 2};
  return g;
}

TEST(PadCodes, WritesTheInputInsideAndTheCodeAround) {
  std::mt19937 rng(5);
  const uint8_t code = 37;
  for (const ConvGeometry& g :
       {geometry(2, 3, 5, 7, {1, 2}, {0, 1}), geometry(1, 16, 4, 4, {1, 1}, {1, 1}),
        geometry(1, 1, 3, 2, {0, 0}, {2, 0})}) {
    const int64_t n = g.src_dims[0], c = g.src_dims[1], h = g.src_dims[2], w = g.src_dims[3];
    const ConvGeometry p = padded_input_geometry(g);
    const int64_t ph = p.src_dims[2], pw = p.src_dims[3];
    EXPECT_EQ(ph, h + g.pad_l[0] + g.pad_r[0]);
    EXPECT_EQ(pw, w + g.pad_l[1] + g.pad_r[1]);
    EXPECT_FALSE(conv_pads(p));
    EXPECT_EQ(p.dst_dims, g.dst_dims);
    std::vector<uint8_t> x(size_t(n * c * h * w));
    for (auto& v : x) v = uint8_t(rng() % 256);
    for (Layout layout : {Layout::kNHWC, Layout::kPlain}) {
      const bool nhwc = layout == Layout::kNHWC;
      SCOPED_TRACE(nhwc ? "NHWC" : "plain");
      std::vector<uint8_t> got(size_t(n * c * ph * pw), 0);
      pad_codes(x.data(), g, layout, code, got.data());
      int64_t wrong = 0;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t y = 0; y < ph; ++y)
            for (int64_t xx = 0; xx < pw; ++xx) {
              const int64_t iy = y - g.pad_l[0], ix = xx - g.pad_l[1];
              const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
              const int64_t from =
                  nhwc ? ((b * h + iy) * w + ix) * c + ch : ((b * c + ch) * h + iy) * w + ix;
              const int64_t to =
                  nhwc ? ((b * ph + y) * pw + xx) * c + ch : ((b * c + ch) * ph + y) * pw + xx;
              wrong += got[size_t(to)] != (inside ? x[size_t(from)] : code);
            }
      EXPECT_EQ(wrong, 0);
    }
  }
  EXPECT_TRUE(conv_pads(geometry(1, 1, 3, 3, {0, 0}, {0, 1})));
  EXPECT_FALSE(conv_pads(geometry(1, 1, 3, 3, {0, 0}, {0, 0})));
}

}  // namespace
}  // namespace edgeq
