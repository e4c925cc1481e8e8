// kernels/pad_codes.h: a convolution's input codes with the padding written out, in NHWC and the
// plain layout, with uneven pads, and with an NHWC input's channels arranged, against references
// written from the definition.
#include "runtime/kernels/pad_codes.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "core/error.h"
#include "core/simd.h"

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

// Slot s of each pixel holds channel order[s] (the code where -1), padded or not, at every SIMD
// level this CPU has: orders whose blocks of 32 slots read their own channels (shuffled), one
// reading another block's (one byte at a time from there on), shorter last blocks, small pixels
// several a shuffle, and slots of nothing.
TEST(PadCodes, ArrangesChannelsAtEveryLevel) {
  std::mt19937 rng(9);
  const uint8_t code = 201;
  auto shuffled_within = [&](int64_t c, int64_t block) {
    std::vector<int32_t> order(static_cast<size_t>(c));
    std::iota(order.begin(), order.end(), 0);
    for (int64_t b = 0; b < c; b += block)
      std::shuffle(order.begin() + b, order.begin() + std::min(c, b + block), rng);
    return order;
  };
  std::vector<int32_t> across = shuffled_within(96, 32);
  std::swap(across[40], across[70]);  // the second and third blocks read each other's
  struct Case {
    int64_t c;
    std::vector<int32_t> order;
  };
  const std::vector<Case> cases = {
      {64, shuffled_within(64, 32)}, {51, shuffled_within(51, 32)}, {96, across},
      {3, {0, -1, 1, -1, 2, -1}},    {40, shuffled_within(40, 40)}, {48, shuffled_within(48, 32)},
      {19, shuffled_within(19, 32)}, {8, shuffled_within(8, 8)},    {5, {4, -1, 0, 1, -1, 3, 2}},
      {16, shuffled_within(16, 16)}};
  std::vector<SimdLevel> levels = {SimdLevel::kScalar};
  if (simd_supported() >= SimdLevel::kAvx2) levels.push_back(SimdLevel::kAvx2);
  if (simd_supported() >= SimdLevel::kAvx512) levels.push_back(SimdLevel::kAvx512);
  const SimdLevel before = simd_level();
  for (const Case& k : cases) {
    const ConvGeometry g = geometry(2, k.c, 5, 7, {1, 2}, {0, 1});
    const int64_t n = 2, h = 5, w = 7, slots = int64_t(k.order.size());
    std::vector<uint8_t> x(size_t(n * h * w * k.c));
    for (auto& v : x) v = uint8_t(rng() % 256);
    const ChannelArrangement a(k.order, k.c);
    EXPECT_EQ(a.slots(), slots);
    for (SimdLevel level : levels)
      for (bool pad : {false, true}) {
        SCOPED_TRACE(std::string(simd_level_name(level)) + ", channels " + std::to_string(k.c) +
                     (pad ? ", padded" : ""));
        set_simd_level(level);
        const int64_t top = pad ? 1 : 0, left = pad ? 2 : 0;
        const int64_t ph = pad ? h + 1 : h, pw = pad ? w + 3 : w;
        std::vector<uint8_t> got(size_t(n * ph * pw * slots), 0);
        arrange_codes(x.data(), g, a, pad, code, got.data());
        int64_t wrong = 0;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t y = 0; y < ph; ++y)
            for (int64_t xx = 0; xx < pw; ++xx)
              for (int64_t s = 0; s < slots; ++s) {
                const int64_t iy = y - top, ix = xx - left;
                const int32_t ch = k.order[size_t(s)];
                const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w && ch >= 0;
                const uint8_t want = inside ? x[size_t(((b * h + iy) * w + ix) * k.c + ch)] : code;
                wrong += got[size_t(((b * ph + y) * pw + xx) * slots + s)] != want;
              }
        EXPECT_EQ(wrong, 0);
      }
  }
  set_simd_level(before);
  EXPECT_THROW(ChannelArrangement({0, 3}, 3), Error);
  // No pixels: nothing read or written (a shorter last block reads its pixel's neighbours).
  const ChannelArrangement tail(shuffled_within(48, 32), 48);
  uint8_t untouched = 7;
  tail.pixels(nullptr, 0, code, &untouched);
  EXPECT_EQ(untouched, 7);
}

}  // namespace
}  // namespace edgeq
