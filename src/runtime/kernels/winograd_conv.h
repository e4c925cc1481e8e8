// 3x3 stride-1 float convolutions by Winograd's F(4x4, 3x3) on AVX2 with FMA: 36 multiplications
// per 4x4 outputs and input channel instead of 144. Each 6x6 input tile goes to the transform
// domain (B^T d B), multiplies the weights transformed once (G g G^T) in 36 small matrix products
// over the input channels, and comes back as 4x4 outputs (A^T m A), plus bias, then an optional
// SiLU or fake-quant step. Tiles are processed in blocks that stay in L2, one block at a time per
// thread. Every tile is computed by the same operations in the same order whatever thread takes
// it, so results do not depend on the thread count; they differ from oneDNN's direct convolution
// in the last bits (a few 1e-6 of the terms' magnitude; FP32 results already differ across CPU
// levels). On a 2-core Zen 3 oneDNN's direct AVX2 kernel runs near the cores' FMA peak, so fewer
// multiplications is how these convolutions get faster there.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/kernels/conv_common.h"

namespace edgeq {

class WinogradConv {
 public:
  // Whether convolutions of geometry `g` run here: 3x3, stride 1, dilation 1, no groups, at least 8
  // input channels (faster than oneDNN's direct kernel with its SiLU on every such shape of
  // yolo11n-pose on an AVX2 CPU; measured in docs/status.md, issue 31), where oneDNN runs its AVX2
  // kernels (onednn_runs_avx2: at AVX-512 oneDNN's own kernels stay, not measured against these) on
  // a CPU with FMA. The choice follows oneDNN's level, not EDGEQ_SIMD's, so every edgeq level
  // computes the same bits on one CPU.
  static bool supports(const ConvGeometry& g);
  // weights [O, I, 3, 3], bias [O] or null; then SiLU when `silu`, then the output's fake-quant
  // step when `fake_quant` is active.
  WinogradConv(const ConvGeometry& g, const float* weights, const float* bias, bool silu,
               const FakeQuantParams& fake_quant = {});
  // NHWC batch of src -> NHWC dst.
  void run(const float* src, float* dst) const;

 private:
  ConvGeometry g_;
  int64_t ic_, oc_, icp_, ocp_;        // channels, and padded to the vector width
  int64_t tiles_h_, tiles_w_, block_;  // tile grid, tiles per block
  // Where U[xi][i][o] lies: per xi, panels of 16 output channels (the last of 8 where ocp is
  // not a multiple of 16), each [icp][width].
  int64_t weight_index(int64_t xi, int64_t i, int64_t o) const;
  template <int M>
  void transform_weights(const float* weights);
  template <int M>
  void run_tiles(const float* src, float* dst) const;
  int64_t xis_ = 0;          // points of the transform domain, 6 x 6
  std::vector<float> u_;     // the transformed weights
  std::vector<float> bias_;  // [ocp]
  bool silu_;
  FakeQuantParams fake_quant_;
};

}  // namespace edgeq
