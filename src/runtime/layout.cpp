#include "runtime/layout.h"

#include <algorithm>

#include "core/error.h"

namespace edgeq {
namespace {

// Transposes each of `batch` row-major [rows, cols] matrices of 4-byte elements, in 32 x 32 tiles.
// The work items are blocks of 32 rows by up to kColBlock columns (so a matrix of few rows, such
// as an RGB image, still splits across threads); `seen` gets each block's source rows after use.
void transpose_batched(const uint32_t* src, uint32_t* dst, int64_t batch, int64_t rows,
                       int64_t cols, const LayoutObserver* seen) {
  constexpr int64_t kTile = 32, kColBlock = 128 * kTile;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_block = std::min(cols, kColBlock);
  const int64_t col_blocks = (cols + col_block - 1) / std::max<int64_t>(col_block, 1);
#pragma omp parallel for collapse(3) schedule(static)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t rt = 0; rt < row_tiles; ++rt)
      for (int64_t cb = 0; cb < col_blocks; ++cb) {
        const uint32_t* s = src + b * rows * cols;
        uint32_t* d = dst + b * rows * cols;
        const int64_t r0 = rt * kTile, r_end = std::min(rows, r0 + kTile);
        const int64_t c0 = cb * col_block, c_last = std::min(cols, c0 + col_block);
        for (int64_t ct = c0; ct < c_last; ct += kTile) {
          const int64_t c_end = std::min(c_last, ct + kTile);
          for (int64_t r = r0; r < r_end; ++r)
            for (int64_t c = ct; c < c_end; ++c) d[c * rows + r] = s[r * cols + c];
        }
        if (!seen) continue;
        const float* f = reinterpret_cast<const float*>(s);
        if (col_block == cols)  // whole rows: one contiguous piece
          (*seen)(f + r0 * cols, (r_end - r0) * cols);
        else
          for (int64_t r = r0; r < r_end; ++r) (*seen)(f + r * cols + c0, c_last - c0);
      }
}

void check(const Tensor& src, const Tensor& dst, const LayoutObserver* seen) {
  EDGEQ_CHECK(src.rank() == 4 && dst.rank() == 4 && dtype_size(src.dtype()) == 4 &&
                  src.numel() == dst.numel(),
              "layout conversion needs 4-D 32-bit tensors of equal size");
  EDGEQ_CHECK(!seen || src.dtype() == DType::kFloat32, "layout conversion: only float32 values ",
              "can be observed");
}

}  // namespace

void nchw_to_nhwc(const Tensor& src, Tensor& dst, const LayoutObserver* seen) {
  check(src, dst, seen);
  const Shape& s = src.shape();
  transpose_batched(src.data<uint32_t>(), dst.data<uint32_t>(), s[0], s[1], s[2] * s[3], seen);
}

void nhwc_to_nchw(const Tensor& src, Tensor& dst, const LayoutObserver* seen) {
  check(src, dst, seen);
  const Shape& s = src.shape();  // [N,H,W,C]
  transpose_batched(src.data<uint32_t>(), dst.data<uint32_t>(), s[0], s[1] * s[2], s[3], seen);
}

}  // namespace edgeq
