#include "runtime/kernels/winograd_conv.h"

#include <omp.h>

#include <algorithm>

#include "runtime/dnnl_context.h"
#include "runtime/fake_quant.h"
#include "runtime/kernels/silu_fake_quant.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EDGEQ_WINOGRAD 1
#define EDGEQ_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

namespace edgeq {
namespace {

constexpr int64_t kPanel = 16;           // output channels per weights panel (the last may have 8)
constexpr int64_t kRows = 6;             // tiles per step of the matrix product
constexpr int64_t kBlockFloats = 32768;  // 128 KiB of transformed tiles per block
constexpr int64_t kMinInputChannels = 8;
constexpr int kTile = 4;  // outputs per tile side: F(4x4, 3x3)

int64_t round_up(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

}  // namespace

#ifdef EDGEQ_WINOGRAD
namespace {

// The lanes of the last vector of `n` channels that exist (all when n is a multiple of 8).
EDGEQ_TARGET_AVX2_FMA inline __m256i tail_mask(int64_t n) {
  const int64_t left = n % 8 == 0 ? 8 : n % 8;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// C[r][0..8V) = sum over k of A[r][k] * B[k][0..8V), for R rows of A (stride lda) and a
// weights panel B [k][8V]; C rows have stride ldc. Each row's sums go in k order whatever R is.
template <int R, int V>
EDGEQ_TARGET_AVX2_FMA void panel_product(const float* a, int64_t lda, const float* b, int64_t k,
                                         float* c, int64_t ldc) {
  __m256 acc[R][V];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    __m256 bv[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(b + kk * 8 * V + 8 * v);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + kk);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
}

template <int V>
EDGEQ_TARGET_AVX2_FMA void rows_product(int64_t rows, const float* a, int64_t lda, const float* b,
                                        int64_t k, float* c, int64_t ldc) {
  switch (rows) {
    case 6:
      return panel_product<6, V>(a, lda, b, k, c, ldc);
    case 5:
      return panel_product<5, V>(a, lda, b, k, c, ldc);
    case 4:
      return panel_product<4, V>(a, lda, b, k, c, ldc);
    case 3:
      return panel_product<3, V>(a, lda, b, k, c, ldc);
    case 2:
      return panel_product<2, V>(a, lda, b, k, c, ldc);
    default:
      return panel_product<1, V>(a, lda, b, k, c, ldc);
  }
}

struct Block {
  int64_t first, count;  // tiles [first, first + count) in row-major tile order
};

// The 1-D transforms of F(M, 3): B^T on A = M + 2 input values, A^T on A products down to M
// outputs, G on 3 weights (in double, once per model). Lavin and Gray's F(4, 3):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//   G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
template <int M>
struct Winograd;

template <>
struct Winograd<4> {
  static constexpr int A = 6;
  EDGEQ_TARGET_AVX2_FMA static void input(const __m256* d, __m256* r) {
    const __m256 four = _mm256_set1_ps(4.f), five = _mm256_set1_ps(5.f);
    const __m256 a = _mm256_fnmadd_ps(four, d[2], d[4]);  // d4 - 4 d2
    const __m256 b = _mm256_fnmadd_ps(four, d[1], d[3]);  // d3 - 4 d1
    const __m256 c = _mm256_sub_ps(d[4], d[2]);
    const __m256 e = _mm256_add_ps(_mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[3], d[1]));
    r[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
    r[1] = _mm256_add_ps(a, b);
    r[2] = _mm256_sub_ps(a, b);
    r[3] = _mm256_add_ps(c, e);
    r[4] = _mm256_sub_ps(c, e);
    r[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
  }
  EDGEQ_TARGET_AVX2_FMA static void output(const __m256* m, __m256* y) {
    const __m256 p = _mm256_add_ps(m[1], m[2]), q = _mm256_sub_ps(m[1], m[2]);
    const __m256 u = _mm256_add_ps(m[3], m[4]), w = _mm256_sub_ps(m[3], m[4]);
    y[0] = _mm256_add_ps(_mm256_add_ps(m[0], p), u);
    y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.f), w, q);
    y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.f), u, p);
    y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.f), w, q), m[5]);
  }
  static void weight(const double* g, double* u) {  // (multiplications: no double division)
    constexpr double sixth = 1.0 / 6, twelfth = 1.0 / 12, twentyfourth = 1.0 / 24;
    u[0] = g[0] * 0.25;
    u[1] = -(g[0] + g[1] + g[2]) * sixth;
    u[2] = -(g[0] - g[1] + g[2]) * sixth;
    u[3] = g[0] * twentyfourth + g[1] * twelfth + g[2] * sixth;
    u[4] = g[0] * twentyfourth - g[1] * twelfth + g[2] * sixth;
    u[5] = g[2];
  }
};

// V[xi][t][c] = (B^T d B)[xi] for the block's AxA input tiles d (zeros outside the image).
template <int M>
EDGEQ_TARGET_AVX2_FMA void input_transform(const ConvGeometry& g, const float* src, int64_t ic,
                                           int64_t icp, int64_t tiles_w, Block blk, float* v) {
  constexpr int A = Winograd<M>::A;
  const int64_t h = g.src_dims[2], w = g.src_dims[3];
  const __m256i mask = tail_mask(ic);
  const __m256 zero = _mm256_setzero_ps();
  const int64_t plane = blk.count * icp;  // floats per transform-domain matrix
  for (int64_t t = 0; t < blk.count; ++t) {
    const int64_t tile = blk.first + t, ty = tile / tiles_w, tx = tile % tiles_w;
    const int64_t row0 = M * ty - g.pad_l[0], col0 = M * tx - g.pad_l[1];
    const float* at[A * A];
    for (int i = 0; i < A; ++i)
      for (int j = 0; j < A; ++j) {
        const int64_t y = row0 + i, x = col0 + j;
        at[i * A + j] = y >= 0 && y < h && x >= 0 && x < w ? src + (y * w + x) * ic : nullptr;
      }
    float* out = v + t * icp;
    for (int64_t c = 0; c < icp; c += 8) {
      const bool tail = c + 8 > ic;
      __m256 s[A * A];
      for (int j = 0; j < A; ++j) {  // B^T d, a column at a time
        __m256 col[A], r[A];
        for (int i = 0; i < A; ++i) {
          const float* p = at[i * A + j];
          col[i] = !p ? zero : (tail ? _mm256_maskload_ps(p + c, mask) : _mm256_loadu_ps(p + c));
        }
        Winograd<M>::input(col, r);
        for (int i = 0; i < A; ++i) s[i * A + j] = r[i];
      }
      for (int i = 0; i < A; ++i) {  // (B^T d) B, a row at a time
        __m256 r[A];
        Winograd<M>::input(s + i * A, r);
        for (int k = 0; k < A; ++k) _mm256_storeu_ps(out + (i * A + k) * plane + c, r[k]);
      }
    }
  }
}

// dst's MxM outputs of each tile = A^T m A + bias, from M[xi][t][c].
template <int M>
EDGEQ_TARGET_AVX2_FMA void output_transform(const ConvGeometry& g, const float* m,
                                            const float* bias, int64_t oc, int64_t ocp,
                                            int64_t tiles_w, Block blk, float* dst) {
  constexpr int A = Winograd<M>::A;
  const int64_t oh = g.dst_dims[2], ow = g.dst_dims[3];
  const __m256i mask = tail_mask(oc);
  const int64_t plane = blk.count * ocp;
  for (int64_t t = 0; t < blk.count; ++t) {
    const int64_t tile = blk.first + t, ty = tile / tiles_w, tx = tile % tiles_w;
    float* at[M * M];
    for (int a = 0; a < M; ++a)
      for (int b = 0; b < M; ++b) {
        const int64_t y = M * ty + a, x = M * tx + b;
        at[a * M + b] = y < oh && x < ow ? dst + (y * ow + x) * oc : nullptr;
      }
    const float* in = m + t * ocp;
    for (int64_t c = 0; c < oc; c += 8) {
      __m256 s[M * A];
      for (int j = 0; j < A; ++j) {  // A^T m, a column at a time
        __m256 col[A], r[M];
        for (int i = 0; i < A; ++i) col[i] = _mm256_loadu_ps(in + (i * A + j) * plane + c);
        Winograd<M>::output(col, r);
        for (int i = 0; i < M; ++i) s[i * A + j] = r[i];
      }
      const __m256 bv = _mm256_loadu_ps(bias + c);
      const bool tail = c + 8 > oc;
      for (int a = 0; a < M; ++a) {  // (A^T m) A, a row at a time
        __m256 y[M];
        Winograd<M>::output(s + a * A, y);
        for (int b = 0; b < M; ++b) {
          float* p = at[a * M + b];
          if (!p) continue;
          const __m256 out = _mm256_add_ps(y[b], bv);
          if (tail)
            _mm256_maskstore_ps(p + c, mask, out);
          else
            _mm256_storeu_ps(p + c, out);
        }
      }
    }
  }
}

}  // namespace
#endif

bool WinogradConv::supports(const ConvGeometry& g) {
#ifdef EDGEQ_WINOGRAD
  const bool shape = g.group == 1 && g.kernel[0] == 3 && g.kernel[1] == 3 && g.strides[0] == 1 &&
                     g.strides[1] == 1 && g.dilations[0] == 1 && g.dilations[1] == 1;
  // Fewer than 8 input channels were not measured (the model's 3-channel first conv has stride 2).
  return shape && g.src_dims[1] >= kMinInputChannels && onednn_runs_avx2() &&
         __builtin_cpu_supports("fma");
#else
  (void)g;
  return false;
#endif
}

WinogradConv::WinogradConv(const ConvGeometry& g, const float* weights, const float* bias,
                           bool silu, const FakeQuantParams& fake_quant)
    : g_(g), silu_(silu), fake_quant_(fake_quant) {
  ic_ = g.src_dims[1];
  oc_ = g.dst_dims[1];
  icp_ = round_up(ic_, 8);
  ocp_ = round_up(oc_, 8);
  tiles_h_ = (g.dst_dims[2] + kTile - 1) / kTile;
  tiles_w_ = (g.dst_dims[3] + kTile - 1) / kTile;
  const int64_t a = kTile + 2;
  xis_ = a * a;
  block_ =
      std::max<int64_t>(kRows * 2, kBlockFloats / (xis_ * std::max(icp_, ocp_)) / kRows * kRows);
  u_.assign(xis_ * ocp_ * icp_, 0.f);
#ifdef EDGEQ_WINOGRAD
  transform_weights<kTile>(weights);
#else
  (void)weights;
#endif
  bias_.assign(ocp_, 0.f);
  if (bias) std::copy(bias, bias + oc_, bias_.begin());
}

int64_t WinogradConv::weight_index(int64_t xi, int64_t i, int64_t o) const {
  const int64_t panel = o / kPanel * kPanel, width = std::min(kPanel, ocp_ - panel);
  return (xi * ocp_ + panel) * icp_ + i * width + (o - panel);
}

#ifdef EDGEQ_WINOGRAD

// U = G g G^T per (output, input) channel pair, in double, rounded once to float.
template <int M>
void WinogradConv::transform_weights(const float* weights) {
  constexpr int A = Winograd<M>::A;
  const int64_t plane = ocp_ * icp_;  // floats of U per transform-domain point
  // Input channel outside, output channels of a panel inside: each point's writes are adjacent.
  // (Panels in parallel: each value is computed the same way whatever thread takes it.)
  const int64_t panels = (oc_ + kPanel - 1) / kPanel;
#pragma omp parallel for schedule(static) if (!omp_in_parallel())
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t i = 0; i < ic_; ++i)
      for (int64_t panel = p * kPanel, o = panel; o < std::min(oc_, panel + kPanel); ++o) {
        const float* k = weights + (o * ic_ + i) * 9;
        double gg[A][3];  // G g, a column of g at a time
        for (int col = 0; col < 3; ++col) {
          const double g[3] = {k[col], k[3 + col], k[6 + col]};
          double u[A];
          Winograd<M>::weight(g, u);
          for (int r = 0; r < A; ++r) gg[r][col] = u[r];
        }
        float* at = u_.data() + weight_index(0, i, o);
        for (int r = 0; r < A; ++r) {  // (G g) G^T, a row at a time
          double u[A];
          Winograd<M>::weight(gg[r], u);
          for (int col = 0; col < A; ++col) at[(r * A + col) * plane] = static_cast<float>(u[col]);
        }
      }
}

template <int M>
void WinogradConv::run_tiles(const float* src, float* dst) const {
  const int64_t tiles = tiles_h_ * tiles_w_;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // Blocks of at most block_ tiles, a multiple of the thread count of them so that each thread
  // gets the same share. (Each tile's outputs do not depend on its block.)
  int64_t blocks = round_up(std::max<int64_t>((tiles + block_ - 1) / block_, threads), threads);
  const int64_t per_block = (tiles + blocks - 1) / blocks;
  blocks = (tiles + per_block - 1) / per_block;
  const int64_t in_image = g_.src_dims[1] * g_.src_dims[2] * g_.src_dims[3];
  const int64_t out_image = g_.dst_dims[1] * g_.dst_dims[2] * g_.dst_dims[3];
  const int64_t ow = g_.dst_dims[3], oh = g_.dst_dims[2];
  for (int64_t n = 0; n < g_.src_dims[0]; ++n) {
    const float* s = src + n * in_image;
    float* d = dst + n * out_image;
#pragma omp parallel for schedule(static) if (threads > 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const Block blk{b * per_block, std::min(per_block, tiles - b * per_block)};
      thread_local std::vector<float> v, m;
      v.resize(xis_ * per_block * icp_);
      m.resize(xis_ * per_block * ocp_);
      input_transform<M>(g_, s, ic_, icp_, tiles_w_, blk, v.data());
      for (int64_t xi = 0; xi < xis_; ++xi)
        for (int64_t o = 0; o < ocp_; o += kPanel) {
          const float* a = v.data() + xi * blk.count * icp_;
          const float* u = u_.data() + weight_index(xi, 0, o);
          float* c = m.data() + xi * blk.count * ocp_ + o;
          const bool last_eight = o + kPanel > ocp_;
          for (int64_t r = 0; r < blk.count; r += kRows) {
            const int64_t rows = std::min(kRows, blk.count - r);
            if (last_eight)
              rows_product<1>(rows, a + r * icp_, icp_, u, icp_, c + r * ocp_, ocp_);
            else
              rows_product<2>(rows, a + r * icp_, icp_, u, icp_, c + r * ocp_, ocp_);
          }
        }
      output_transform<M>(g_, m.data(), bias_.data(), oc_, ocp_, tiles_w_, blk, d);
      if (silu_ || fake_quant_.active()) {
        // The block's outputs while in cache, row by row of tiles: M output rows of
        // consecutive columns each.
        const FakeQuantParams none;
        for (int64_t t = blk.first; t < blk.first + blk.count;) {
          const int64_t ty = t / tiles_w_, tx0 = t % tiles_w_;
          const int64_t tx1 = std::min(tiles_w_, tx0 + (blk.first + blk.count - t));
          const int64_t x0 = M * tx0, x1 = std::min(ow, M * tx1);
          for (int64_t y = M * ty; y < std::min(oh, M * ty + M); ++y) {
            float* row = d + (y * ow + x0) * oc_;
            if (silu_) silu_fake_quant_span(row, row, (x1 - x0) * oc_, none, none);
            if (fake_quant_.active()) fake_quant_span(row, row, (x1 - x0) * oc_, fake_quant_);
          }
          t += tx1 - tx0;
        }
      }
    }
  }
}

#endif

void WinogradConv::run(const float* src, float* dst) const {
#ifdef EDGEQ_WINOGRAD
  run_tiles<kTile>(src, dst);
#else
  (void)src;
  (void)dst;
  fail("WinogradConv: not built for this CPU");
#endif
}

}  // namespace edgeq
