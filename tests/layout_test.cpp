#include "runtime/layout.h"

#include <gtest/gtest.h>

#include "graph_builders.h"
#include "runtime/layout_choice.h"

namespace edgeq {

// Both directions against index arithmetic, for the small-channel path (C <= 4) and the tiled one.
TEST(Layout, NchwNhwcRoundTripMatchesIndexMath) {
  for (Shape s :
       {Shape{1, 3, 5, 7}, Shape{2, 4, 33, 65}, Shape{1, 17, 9, 40}, Shape{2, 64, 3, 3}}) {
    const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
    Tensor x(DType::kFloat32, s);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i);
    Tensor y(DType::kFloat32, {n, h, w, c});
    nchw_to_nhwc(x, y);
    for (int64_t a = 0; a < n; ++a)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j)
            ASSERT_EQ(y.data<float>()[((a * h + i) * w + j) * c + k],
                      x.data<float>()[((a * c + k) * h + i) * w + j]);
    Tensor back(DType::kFloat32, s);
    nhwc_to_nchw(y, back);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(back.data<float>()[i], x.data<float>()[i]);
  }
}

}  // namespace edgeq

namespace edgeq {

// Conv runs NHWC whatever its input's layout: oneDNN's plain float convolution is a GEMM whose sums
// follow the thread count on AVX2 (a 1x1 Conv that read a plain value, such as one a hook watches,
// ran there and its results depended on --threads).
TEST(LayoutChoice, ConvRunsNhwcEvenOnAPlainInput) {
  Node conv = test::node("conv", "Conv", {"x", "w"}, {"y"});
  Tensor w1(DType::kFloat32, {8, 16, 1, 1}), w3(DType::kFloat32, {8, 16, 3, 3});
  ValueDesc x{DType::kFloat32, {1, 16, 4, 8400}, nullptr};
  auto plain = [](size_t) { return false; };
  auto nhwc = [](size_t) { return true; };
  const Shape out = {1, 8, 4, 8400};
  EXPECT_EQ(choose_layout(conv, {x, {DType::kFloat32, w1.shape(), &w1}}, out, plain),
            Layout::kNHWC);
  EXPECT_EQ(choose_layout(conv, {x, {DType::kFloat32, w1.shape(), &w1}}, out, nhwc), Layout::kNHWC);
  EXPECT_EQ(choose_layout(conv, {x, {DType::kFloat32, w3.shape(), &w3}}, out, plain),
            Layout::kNHWC);
  // QConv: oneDNN's plain int8 convolution is its slow reference kernel.
  Node qconv = conv;
  qconv.op_type = "QConv";
  qconv.domain = "edgeq";
  ValueDesc codes{DType::kUInt8, x.shape, nullptr};
  Tensor q1(DType::kInt8, w1.shape());
  EXPECT_EQ(choose_layout(qconv, {codes, {DType::kInt8, q1.shape(), &q1}}, out, plain),
            Layout::kNHWC);
}

}  // namespace edgeq
