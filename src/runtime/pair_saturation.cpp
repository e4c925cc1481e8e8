#include "runtime/pair_saturation.h"

#include "runtime/int8_pairs.h"

namespace edgeq {

std::vector<SaturatingPair> saturating_pairs(const Tensor& weights, int64_t group) {
  const int64_t c_out = weights.dim(0), cig = weights.dim(1), kh = weights.dim(2);
  const int64_t kw = weights.dim(3), per_out = cig * kh * kw, per_group = c_out / group;
  const std::vector<WeightPair> pairs = conv_weight_pairs(cig, kh, kw, PairOrder::kOnnxRuntime);
  std::vector<SaturatingPair> out;
  for (int64_t o = 0; o < c_out; ++o) {
    const int8_t* row = weights.data<int8_t>() + o * per_out;
    const int32_t c0 = static_cast<int32_t>(o / per_group * cig);
    auto channel = [&](int32_t i) { return c0 + static_cast<int32_t>(i / (kh * kw)); };
    auto ky = [&](int32_t i) { return static_cast<int32_t>(i / kw % kh); };
    auto kx = [&](int32_t i) { return static_cast<int32_t>(i % kw); };
    for (const auto& [a, b] : pairs)
      if (pair_can_overflow(row[a], row[b]))
        out.push_back({static_cast<int32_t>(o), channel(a), ky(a), kx(a), channel(b), ky(b), kx(b),
                       row[a], row[b]});
  }
  return out;
}

int64_t apply_pair_saturation(const ConvGeometry& g, Layout layout, const uint8_t* x,
                              int32_t pad_code, const std::vector<SaturatingPair>& pairs,
                              int32_t* acc) {
  const int64_t c_in = g.src_dims[1], ih = g.src_dims[2], iw = g.src_dims[3];
  const int64_t c_out = g.dst_dims[1], oh = g.dst_dims[2], ow = g.dst_dims[3];
  const bool nhwc = layout == Layout::kNHWC;
  int64_t saturated = 0;
#pragma omp parallel for schedule(static) reduction(+ : saturated)
  for (int64_t row = 0; row < g.dst_dims[0] * oh; ++row) {
    const int64_t n = row / oh, y = row % oh;
    const uint8_t* image = x + n * c_in * ih * iw;
    auto code = [&](int32_t c, int32_t ky, int32_t kx, int64_t ox) -> int32_t {
      const int64_t sy = y * g.strides[0] - g.pad_l[0] + ky * g.dilations[0];
      const int64_t sx = ox * g.strides[1] - g.pad_l[1] + kx * g.dilations[1];
      if (sy < 0 || sy >= ih || sx < 0 || sx >= iw) return pad_code;
      return image[nhwc ? (sy * iw + sx) * c_in + c : (c * ih + sy) * iw + sx];
    };
    for (int64_t ox = 0; ox < ow; ++ox)
      for (const SaturatingPair& p : pairs) {
        const int32_t exact =
            code(p.c_a, p.y_a, p.x_a, ox) * p.w_a + code(p.c_b, p.y_b, p.x_b, ox) * p.w_b;
        const int32_t kept = saturate_int16(exact);
        if (kept == exact) continue;
        ++saturated;
        if (acc)
          acc[nhwc ? ((n * oh + y) * ow + ox) * c_out + p.o
                   : ((n * c_out + p.o) * oh + y) * ow + ox] += kept - exact;
      }
  }
  return saturated;
}

}  // namespace edgeq
