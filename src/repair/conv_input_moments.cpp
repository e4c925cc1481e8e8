#include "repair/conv_input_moments.h"

#include <algorithm>

#include "core/error.h"
#include "core/simd.h"

namespace edgeq {
namespace {

constexpr int64_t kTileRows = ConvInputAccumulator::kTileRows;
constexpr int64_t kTileCols = ConvInputAccumulator::kTileCols;

int64_t round_up(int64_t n, int64_t m) {
  return (n + m - 1) / m * m;
}

// acc[r][j] = sum over positions p < n of col[p][i0 + r] * col[p][j0 + j]: each entry summed
// over p in order, so the AVX-512, AVX2 and baseline clones (core/simd.h) give the same bits.
EDGEQ_ALWAYS_INLINE void gram_tile_body(const float* cols, int64_t ld, int64_t n, int64_t i0,
                                        int64_t j0, float (&acc)[kTileRows][kTileCols]) {
  for (auto& row : acc) std::fill(std::begin(row), std::end(row), 0.0f);
  for (int64_t p = 0; p < n; ++p) {
    const float* col = cols + p * ld;
    const float* b = col + j0;
    const float a0 = col[i0], a1 = col[i0 + 1], a2 = col[i0 + 2], a3 = col[i0 + 3];
#pragma omp simd
    for (int64_t j = 0; j < kTileCols; ++j) {
      acc[0][j] += a0 * b[j];
      acc[1][j] += a1 * b[j];
      acc[2][j] += a2 * b[j];
      acc[3][j] += a3 * b[j];
    }
  }
}

EDGEQ_SIMD_CLONES(, void, gram_tile, gram_tile_body,
                  (const float* cols, int64_t ld, int64_t n, int64_t i0, int64_t j0,
                   float (&acc)[kTileRows][kTileCols]),
                  (cols, ld, n, i0, j0, acc))

}  // namespace

std::vector<double> ConvInputMoments::mean(int64_t g) const {
  std::vector<double> m(sum.begin() + g * k, sum.begin() + (g + 1) * k);
  if (columns > 0)
    for (double& v : m) v /= static_cast<double>(columns);
  return m;
}

size_t moments_bytes(const ConvGeometry& geom, bool with_gram) {
  const auto groups = static_cast<size_t>(geom.group);
  const auto k =
      static_cast<size_t>(geom.src_dims[1] / geom.group * geom.kernel[0] * geom.kernel[1]);
  return groups * k * (with_gram ? k + 1 : 1) * sizeof(double);
}

ConvInputAccumulator::ConvInputAccumulator(const ConvGeometry& geom, bool with_gram) : geom_(geom) {
  c_in_ = geom.src_dims[1];
  h_ = geom.src_dims[2];
  w_ = geom.src_dims[3];
  out_h_ = geom.dst_dims[2];
  out_w_ = geom.dst_dims[3];
  m_.groups = geom.group;
  m_.k = c_in_ / geom.group * geom.kernel[0] * geom.kernel[1];
  m_.sum.assign(static_cast<size_t>(m_.groups * m_.k), 0.0);
  if (with_gram) m_.gram.assign(static_cast<size_t>(m_.groups * m_.k * m_.k), 0.0);
  ld_ = round_up(m_.k, kTileCols);
  columns_.assign(static_cast<size_t>(m_.groups * kChunk * ld_), 0.0f);
  if (with_gram)
    for (int64_t g = 0; g < m_.groups; ++g)
      for (int64_t i0 = 0; i0 < m_.k; i0 += kTileRows)
        for (int64_t j0 = i0 / kTileCols * kTileCols; j0 < m_.k; j0 += kTileCols)
          tiles_.push_back({g, i0, j0});
}

void ConvInputAccumulator::add(const Tensor& x, int threads) {
  EDGEQ_CHECK(x.dtype() == DType::kFloat32 && x.rank() == 4 && x.shape()[1] == c_in_ &&
                  x.shape()[2] == h_ && x.shape()[3] == w_,
              "conv input moments: expected float32 [N,", c_in_, ",", h_, ",", w_, "], got ",
              dtype_name(x.dtype()), " ", shape_str(x.shape()));
  const int64_t image = c_in_ * h_ * w_;
  for (int64_t n = 0; n < x.shape()[0]; ++n) add_image(x.data<float>() + n * image, threads);
}

void ConvInputAccumulator::add_image(const float* x, int threads) {
  const int64_t groups = m_.groups, k = m_.k, c_group = c_in_ / groups;
  const int64_t kh = geom_.kernel[0], kw = geom_.kernel[1];
  const int64_t sh = geom_.strides[0], sw = geom_.strides[1];
  const int64_t dh = geom_.dilations[0], dw = geom_.dilations[1];
  const int64_t pt = geom_.pad_l[0], pl = geom_.pad_l[1];
  const int64_t positions = out_h_ * out_w_;
  const int64_t blocks = (k + kTileCols - 1) / kTileCols;

  const auto n_tiles = static_cast<int64_t>(tiles_.size());

  for (int64_t p0 = 0; p0 < positions; p0 += kChunk) {
    const int64_t n = std::min(kChunk, positions - p0);
    // im2col of this chunk: columns_[g][p][(c * kh + ky) * kw + kx], padding taps 0.
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t gc = 0; gc < groups * c_group; ++gc) {
      const int64_t g = gc / c_group, c = gc % c_group;
      const float* plane = x + (g * c_group + c) * h_ * w_;
      float* cols = columns_.data() + g * kChunk * ld_;
      for (int64_t p = 0; p < n; ++p) {
        const int64_t oy = (p0 + p) / out_w_, ox = (p0 + p) % out_w_;
        float* col = cols + p * ld_ + c * kh * kw;
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy = oy * sh - pt + ky * dh;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t ix = ox * sw - pl + kx * dw;
            const bool inside = iy >= 0 && iy < h_ && ix >= 0 && ix < w_;
            col[ky * kw + kx] = inside ? plane[iy * w_ + ix] : 0.0f;
          }
        }
      }
    }
    // First moment, per group and block of kTileCols entries.
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t gb = 0; gb < groups * blocks; ++gb) {
      const int64_t g = gb / blocks, j0 = gb % blocks * kTileCols;
      const float* cols = columns_.data() + g * kChunk * ld_;
      float part[kTileCols] = {};
      for (int64_t p = 0; p < n; ++p) {
        const float* col = cols + p * ld_ + j0;
#pragma omp simd
        for (int64_t j = 0; j < kTileCols; ++j) part[j] += col[j];
      }
      double* sum = m_.sum.data() + g * k;
      for (int64_t j = 0; j < kTileCols && j0 + j < k; ++j) sum[j0 + j] += part[j];
    }
    // Second moment, upper triangle (j >= i) by tiles.
    const auto gram_tile = simd_pick(&gram_tile_avx512, &gram_tile_avx2, &gram_tile_scalar);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t t = 0; t < n_tiles; ++t) {
      const GramTile& tile = tiles_[static_cast<size_t>(t)];
      float acc[kTileRows][kTileCols];
      gram_tile(columns_.data() + tile.group * kChunk * ld_, ld_, n, tile.i0, tile.j0, acc);
      double* gram = m_.gram.data() + tile.group * k * k;
      for (int64_t r = 0; r < kTileRows && tile.i0 + r < k; ++r) {
        const int64_t i = tile.i0 + r;
        for (int64_t j = std::max(i, tile.j0); j < std::min(k, tile.j0 + kTileCols); ++j)
          gram[i * k + j] += acc[r][j - tile.j0];
      }
    }
  }
  m_.columns += static_cast<uint64_t>(positions);
}

ConvInputMoments ConvInputAccumulator::take() {
  // Only the upper triangle was summed: mirror it, so that readers see a symmetric matrix.
  const int64_t k = m_.k;
  for (int64_t g = 0; g < m_.groups && m_.has_gram(); ++g) {
    double* gram = m_.gram.data() + g * k * k;
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = i + 1; j < k; ++j) gram[j * k + i] = gram[i * k + j];
  }
  return std::move(m_);
}

}  // namespace edgeq
