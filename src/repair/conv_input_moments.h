// ConvInputMoments: what weight repair needs to know about a Conv's float input, summed over
// calibration images: the first moment (bias correction) and the second moment (GPTQ's Hessian)
// of the conv's im2col columns.
//
// A column is what one output position of one group multiplies with a weight row: the K =
// C/group * kH * kW input values under the kernel, in weight order (input channel, ky, kx), with
// padding taps 0. Summing columns instead of per-channel means makes a bias correction exact for
// the padded border and for strides.
//
// Accumulation is streamed (one image at a time; nothing but the sums is kept) and its result does
// not depend on the number of threads: every sum is added up by one thread, in a fixed order
// (positions in chunks of kChunk, each chunk's partial sum in float, chunks and images added in
// order in double).
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "runtime/kernels/conv_common.h"

namespace edgeq {

struct ConvInputMoments {
  int64_t groups = 1;
  int64_t k = 0;             // column length: C/group * kH * kW
  uint64_t columns = 0;      // columns summed per group: images * output positions
  std::vector<double> sum;   // [groups][k]
  std::vector<double> gram;  // [groups][k][k] sum of x x^T (symmetric); empty when not collected

  bool has_gram() const { return !gram.empty(); }
  // E[x] of group g's columns, length k (zeros before any column).
  std::vector<double> mean(int64_t g) const;
  // Group g's sum of x x^T, row-major k x k.
  const double* gram_of(int64_t g) const { return gram.data() + g * k * k; }
};

// Bytes the moments of a conv with this geometry hold (the Gram matrices dominate).
size_t moments_bytes(const ConvGeometry& geom, bool with_gram);

// Sums the columns of float NCHW inputs of one conv geometry (every image of each batch).
class ConvInputAccumulator {
 public:
  ConvInputAccumulator(const ConvGeometry& geom, bool with_gram);
  void add(const Tensor& x, int threads);
  // The sums; the accumulator takes nothing more afterwards.
  ConvInputMoments take();

  static constexpr int64_t kChunk = 256;  // output positions per partial sum
  // Gram tiles: kTileRows x kTileCols entries of x x^T, summed over one chunk in registers / L1.
  static constexpr int64_t kTileRows = 4, kTileCols = 32;

 private:
  struct GramTile {
    int64_t group, i0, j0;
  };
  void add_image(const float* x, int threads);
  ConvGeometry geom_;
  int64_t c_in_ = 0, h_ = 0, w_ = 0, out_h_ = 0, out_w_ = 0;
  int64_t ld_ = 0;  // row length of the column buffer: k rounded up to whole gram tiles
  ConvInputMoments m_;
  std::vector<float> columns_;   // [groups][kChunk][ld_]: one chunk of columns, position-major
  std::vector<GramTile> tiles_;  // the upper triangle's tiles, each summed by one thread
};

}  // namespace edgeq
