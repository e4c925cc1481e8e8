#include "runtime/kernels/pointwise_conv.h"

#include <algorithm>
#include <cstring>

#include "core/simd.h"
#include "runtime/fake_quant.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/transpose_tile.h"

namespace edgeq {
namespace {

// Output channels per register block, and pixels per tile: a tile of an NHWC input is transposed
// into a [C][kTile] scratch (64 KB at most for C = 256) that stays in cache while every output
// channel block reads it.
constexpr int kRows = 6;
constexpr int64_t kTile = 64;

template <int kLanes>
struct Lanes {
  typedef float type __attribute__((vector_size(kLanes * sizeof(float))));
};

// `rows` (<= kRows) output channels x 2 vectors of pixels: acc = bias, then acc += w[c] * x[c]
// for c in order. w: packed [C][kRows]; x: [C][ldx]; y: [rows][ldy].
template <int kLanes, int rows>
EDGEQ_ALWAYS_INLINE void block(const float* w, const float* bias, const float* x, int64_t ldx,
                               int64_t channels, float* y, int64_t ldy) {
  using V = typename Lanes<kLanes>::type;
  V acc[rows][2];
  _Pragma("GCC unroll 8") for (int m = 0; m < rows; ++m) {
    acc[m][0] = V{} + bias[m];
    acc[m][1] = acc[m][0];
  }
  for (int64_t c = 0; c < channels; ++c) {
    V x0, x1;
    std::memcpy(&x0, x + c * ldx, sizeof(V));
    std::memcpy(&x1, x + c * ldx + kLanes, sizeof(V));
    _Pragma("GCC unroll 8") for (int m = 0; m < rows; ++m) {
      const float wm = w[c * kRows + m];
      acc[m][0] += wm * x0;
      acc[m][1] += wm * x1;
    }
  }
  _Pragma("GCC unroll 8") for (int m = 0; m < rows; ++m) {
    std::memcpy(y + m * ldy, &acc[m][0], sizeof(V));
    std::memcpy(y + m * ldy + kLanes, &acc[m][1], sizeof(V));
  }
}

template <int kLanes>
EDGEQ_ALWAYS_INLINE void block_rows(int rows, const float* w, const float* bias, const float* x,
                                    int64_t ldx, int64_t channels, float* y, int64_t ldy) {
  switch (rows) {
    case 1:
      return block<kLanes, 1>(w, bias, x, ldx, channels, y, ldy);
    case 2:
      return block<kLanes, 2>(w, bias, x, ldx, channels, y, ldy);
    case 3:
      return block<kLanes, 3>(w, bias, x, ldx, channels, y, ldy);
    case 4:
      return block<kLanes, 4>(w, bias, x, ldx, channels, y, ldy);
    case 5:
      return block<kLanes, 5>(w, bias, x, ldx, channels, y, ldy);
    default:
      return block<kLanes, kRows>(w, bias, x, ldx, channels, y, ldy);
  }
}

// What one tile needs: the packed weights, the input (plain [C][pixels] or NHWC [pixels][C]) and
// the plain output [O][pixels] of one image, and per-thread scratch.
struct TileArgs {
  const float* w;     // [blocks][C][kRows], zero-padded
  const float* bias;  // [blocks * kRows], zero-padded
  int64_t channels, outputs, pixels;
  const float* x;
  bool nhwc;
  float* y;
  float* scratch_x;  // [C][kTile]
  float* scratch_y;  // [kRows][kTile]
};

// Output channel blocks [b0, b1) of the pixels [p0, p0 + n), n <= kTile.
template <int kLanes>
EDGEQ_ALWAYS_INLINE void tile_body(const TileArgs& a, int64_t p0, int64_t n, int64_t b0,
                                   int64_t b1) {
  constexpr int64_t kStep = 2 * kLanes;
  const float* x = a.x + p0;
  int64_t ldx = a.pixels;
  if (a.nhwc || n % kStep != 0) {  // into the scratch, zero-padded to whole vectors
    if (a.nhwc)
      transpose_tile(reinterpret_cast<const uint32_t*>(a.x + p0 * a.channels), a.channels,
                     reinterpret_cast<uint32_t*>(a.scratch_x), kTile, n, a.channels);
    else
      for (int64_t c = 0; c < a.channels; ++c)
        std::memcpy(a.scratch_x + c * kTile, x + c * a.pixels, n * sizeof(float));
    const int64_t padded = (n + kStep - 1) / kStep * kStep;
    for (int64_t c = 0; c < a.channels; ++c)
      std::fill(a.scratch_x + c * kTile + n, a.scratch_x + c * kTile + padded, 0.0f);
    x = a.scratch_x;
    ldx = kTile;
  }
  for (int64_t b = b0; b < b1; ++b) {
    const int rows = static_cast<int>(std::min<int64_t>(kRows, a.outputs - b * kRows));
    const float* w = a.w + b * a.channels * kRows;
    float* y = a.y + b * kRows * a.pixels + p0;
    for (int64_t q = 0; q < n; q += kStep) {
      if (q + kStep <= n) {
        block_rows<kLanes>(rows, w, a.bias + b * kRows, x + q, ldx, a.channels, y + q, a.pixels);
      } else {  // the last pixels: through the scratch, then the valid ones copied
        block_rows<kLanes>(rows, w, a.bias + b * kRows, x + q, ldx, a.channels, a.scratch_y, kStep);
        for (int m = 0; m < rows; ++m)
          std::memcpy(y + m * a.pixels + q, a.scratch_y + m * kStep, (n - q) * sizeof(float));
      }
    }
  }
}

using TileFn = void (*)(const TileArgs&, int64_t, int64_t, int64_t, int64_t);
EDGEQ_TARGET_AVX512 void tile_avx512(const TileArgs& a, int64_t p0, int64_t n, int64_t b0,
                                     int64_t b1) {
  tile_body<16>(a, p0, n, b0, b1);
}
EDGEQ_TARGET_AVX2 void tile_avx2(const TileArgs& a, int64_t p0, int64_t n, int64_t b0, int64_t b1) {
  tile_body<8>(a, p0, n, b0, b1);
}
void tile_scalar(const TileArgs& a, int64_t p0, int64_t n, int64_t b0, int64_t b1) {
  tile_body<4>(a, p0, n, b0, b1);
}

class PointwiseConv final : public Kernel {
 public:
  explicit PointwiseConv(const KernelInit& init) : nhwc_(init.layout == Layout::kNHWC) {
    const Node& n = init.node;
    EDGEQ_CHECK(is_pointwise_conv(n, init.inputs), n.describe(),
                ": not a float 1x1 convolution with stride 1 and no padding");
    const Tensor& w = init.constant(1);
    const ConvGeometry g = conv_geometry(n, init.in(0).shape, w.shape());
    channels_ = w.dim(1);
    outputs_ = w.dim(0);
    const int64_t blocks = (outputs_ + kRows - 1) / kRows;
    weights_.assign(blocks * channels_ * kRows, 0.0f);
    bias_.assign(blocks * kRows, 0.0f);
    const float* wd = w.data<float>();
    for (int64_t o = 0; o < outputs_; ++o)
      for (int64_t c = 0; c < channels_; ++c)
        weights_[(o / kRows) * channels_ * kRows + c * kRows + o % kRows] = wd[o * channels_ + c];
    if (init.has_input(2)) {
      const Tensor& b = init.constant(2);
      EDGEQ_CHECK(b.dtype() == DType::kFloat32 && b.numel() == outputs_, n.describe(),
                  ": bias has ", b.numel(), " values for ", outputs_, " output channels");
      std::copy(b.data<float>(), b.data<float>() + outputs_, bias_.begin());
    }
    fq_ = n.plan.out;
    applies_fake_quant = true;
    outputs.push_back({DType::kFloat32, g.output_shape(), nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const Shape& ys = y.shape();  // plain [N, O, H, W]
    const int64_t images = ys[0], pixels = ys[2] * ys[3];
    if (images * pixels == 0 || outputs_ == 0) return;
    // Few pixels (a 20x20 map): tiles half as wide, and if still few the output channel blocks
    // are split too (each part transposes its tile again), so both cores get work.
    const int64_t width = (pixels + kTile - 1) / kTile >= 8 ? kTile : kTile / 2;
    const int64_t tiles = (pixels + width - 1) / width;
    const int64_t blocks = (outputs_ + kRows - 1) / kRows;
    const int64_t parts = tiles >= 8 ? 1 : std::min<int64_t>(blocks, 4);
    const int64_t per_part = (blocks + parts - 1) / parts;
    const int64_t items = images * tiles * parts;
    const TileFn tile = simd_pick(tile_avx512, tile_avx2, tile_scalar);
    const float* xd = x.data<float>();
    float* yd = y.data<float>();
#pragma omp parallel if (items > 1)
    {
      thread_local std::vector<float> scratch_x, scratch_y;  // kept: no allocation per run
      scratch_x.resize(std::max<size_t>(scratch_x.size(), channels_ * kTile));
      scratch_y.resize(kRows * kTile);
#pragma omp for schedule(static)
      for (int64_t i = 0; i < items; ++i) {
        const int64_t image = i / (tiles * parts), t = i / parts % tiles, part = i % parts;
        const int64_t p0 = t * width, n = std::min(width, pixels - p0);
        const int64_t b0 = part * per_part, b1 = std::min(blocks, b0 + per_part);
        if (b0 >= b1) continue;
        TileArgs a{weights_.data(),
                   bias_.data(),
                   channels_,
                   outputs_,
                   pixels,
                   xd + image * channels_ * pixels,
                   nhwc_,
                   yd + image * outputs_ * pixels,
                   scratch_x.data(),
                   scratch_y.data()};
        tile(a, p0, n, b0, b1);
        if (fq_.active())
          for (int64_t o = b0 * kRows; o < std::min(outputs_, b1 * kRows); ++o) {
            float* row = a.y + o * pixels + p0;
            fake_quant_span(row, row, n, fq_);
          }
      }
    }
  }

 private:
  bool nhwc_;
  int64_t channels_ = 0, outputs_ = 0;
  std::vector<float> weights_, bias_;
  FakeQuantParams fq_;
};

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == value; });
}

}  // namespace

bool is_pointwise_conv(const Node& node, const std::vector<ValueDesc>& inputs) {
  if (node.op_type != "Conv" || !node.domain.empty() || node.plan.silu || inputs.size() < 2)
    return false;
  const ValueDesc& x = inputs[0];
  const ValueDesc& w = inputs[1];
  if (x.dtype != DType::kFloat32 || x.constant || x.shape.size() != 4 || !w.constant ||
      w.dtype != DType::kFloat32 || w.shape.size() != 4 || w.shape[1] != x.shape[1] ||
      w.shape[2] != 1 || w.shape[3] != 1)
    return false;
  if (inputs.size() > 2 && inputs[2].dtype != DType::kUndefined &&
      (!inputs[2].constant || inputs[2].dtype != DType::kFloat32))
    return false;
  return node.attr_int("group", 1) == 1 && all_equal(node.attr_ints("strides", {1, 1}), 1) &&
         all_equal(node.attr_ints("pads", {0, 0, 0, 0}), 0);
}

std::unique_ptr<Kernel> make_pointwise_conv(const KernelInit& init) {
  return std::make_unique<PointwiseConv>(init);
}

}  // namespace edgeq
