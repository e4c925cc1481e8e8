#include "runtime/layout.h"

#include "core/error.h"

namespace edgeq {
namespace {

// Transposes each of `batch` row-major [rows, cols] matrices of 4-byte elements, in tiles.
void transpose_batched(const uint32_t* src, uint32_t* dst, int64_t batch, int64_t rows,
                       int64_t cols) {
  constexpr int64_t kTile = 32;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t rt = 0; rt < row_tiles; ++rt) {
      const uint32_t* s = src + b * rows * cols;
      uint32_t* d = dst + b * rows * cols;
      int64_t r_end = std::min(rows, (rt + 1) * kTile);
      for (int64_t ct = 0; ct < col_tiles; ++ct) {
        int64_t c_end = std::min(cols, (ct + 1) * kTile);
        for (int64_t r = rt * kTile; r < r_end; ++r)
          for (int64_t c = ct * kTile; c < c_end; ++c) d[c * rows + r] = s[r * cols + c];
      }
    }
}

void check(const Tensor& src, const Tensor& dst) {
  EDGEQ_CHECK(src.rank() == 4 && dst.rank() == 4 && dtype_size(src.dtype()) == 4 &&
                  src.numel() == dst.numel(),
              "layout conversion needs 4-D 32-bit tensors of equal size");
}

}  // namespace

void nchw_to_nhwc(const Tensor& src, Tensor& dst) {
  check(src, dst);
  const Shape& s = src.shape();
  transpose_batched(src.data<uint32_t>(), dst.data<uint32_t>(), s[0], s[1], s[2] * s[3]);
}

void nhwc_to_nchw(const Tensor& src, Tensor& dst) {
  check(src, dst);
  const Shape& s = src.shape();  // [N,H,W,C]
  transpose_batched(src.data<uint32_t>(), dst.data<uint32_t>(), s[0], s[1] * s[2], s[3]);
}

}  // namespace edgeq
