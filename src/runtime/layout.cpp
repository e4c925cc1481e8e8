#include "runtime/layout.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "runtime/interleave3.h"
#include "runtime/transpose_tile.h"

namespace edgeq {
namespace {

// Transposes each of `batch` row-major [rows, cols] matrices of T (4-byte floats or 1-byte codes),
// in 32 x 32 tiles (4-byte ones by runtime/transpose_tile).
// The work items are blocks of 32 rows by up to kColBlock columns (so a matrix of few rows, such
// as an RGB image, still splits across threads); `seen` gets each block's source rows after use.
template <typename T>
void transpose_batched(const T* src, T* dst, int64_t batch, int64_t rows, int64_t cols,
                       const LayoutObserver* seen) {
  constexpr int64_t kTile = 32, kColBlock = 128 * kTile;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_block = std::min(cols, kColBlock);
  const int64_t col_blocks = (cols + col_block - 1) / std::max<int64_t>(col_block, 1);
#pragma omp parallel for collapse(3) schedule(static) if (batch * rows * cols > 256 * 1024)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t rt = 0; rt < row_tiles; ++rt)
      for (int64_t cb = 0; cb < col_blocks; ++cb) {
        const T* s = src + b * rows * cols;
        T* d = dst + b * rows * cols;
        const int64_t r0 = rt * kTile, r_end = std::min(rows, r0 + kTile);
        const int64_t c0 = cb * col_block, c_last = std::min(cols, c0 + col_block);
        for (int64_t ct = c0; ct < c_last; ct += kTile) {
          const int64_t c_end = std::min(c_last, ct + kTile);
          if constexpr (sizeof(T) == 4)
            transpose_tile(s + r0 * cols + ct, cols, d + ct * rows + r0, rows, r_end - r0,
                           c_end - ct);
          else
            for (int64_t r = r0; r < r_end; ++r)
              for (int64_t c = ct; c < c_end; ++c) d[c * rows + r] = s[r * cols + c];
        }
        if constexpr (sizeof(T) != sizeof(float)) continue;
        if (!seen) continue;
        const float* f = reinterpret_cast<const float*>(s);
        if (col_block == cols)  // whole rows: one contiguous piece
          (*seen)(f + r0 * cols, (r_end - r0) * cols);
        else
          for (int64_t r = r0; r < r_end; ++r) (*seen)(f + r * cols + c0, c_last - c0);
      }
}

void check(const Tensor& src, const Tensor& dst, const LayoutObserver* seen) {
  const size_t es = dtype_size(src.dtype());
  EDGEQ_CHECK((es == 4 || es == 1) && dst.dtype() == src.dtype() && src.numel() == dst.numel(),
              "transpose: needs tensors of 32-bit or 8-bit elements, of equal size");
  EDGEQ_CHECK(!seen || src.dtype() == DType::kFloat32, "layout conversion: only float32 values ",
              "can be observed");
}

// Bytes with few rows (NCHW -> NHWC of codes with few channels, an RGB image say): each output
// row of `rows` bytes written whole, reading the `rows` source rows as parallel streams.
void transpose_few_rows(const uint8_t* src, uint8_t* dst, int64_t batch, int64_t rows,
                        int64_t cols) {
  constexpr int64_t kCols = 16 * 1024;
  const int64_t blocks = (cols + kCols - 1) / kCols;
#pragma omp parallel for collapse(2) if (batch * rows * cols > 4 * 1024 * 1024)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const uint8_t* s = src + b * rows * cols;
      uint8_t* d = dst + b * rows * cols;
      const int64_t c_end = std::min(cols, (cb + 1) * kCols);
      for (int64_t c = cb * kCols; c < c_end; ++c)
        for (int64_t r = 0; r < rows; ++r) d[c * rows + r] = s[r * cols + c];
    }
}

// Floats or bytes with 3 rows (an RGB image or its codes, NCHW -> NHWC): whole output vectors by
// runtime/interleave3. Work items are column blocks; `seen` (floats) gets each block's three
// source pieces after use.
template <typename T>
void transpose_three_rows(const T* src, T* dst, int64_t batch, int64_t cols,
                          const LayoutObserver* seen) {
  constexpr int64_t kCols = 8 * 1024;
  const int64_t blocks = (cols + kCols - 1) / kCols;
#pragma omp parallel for collapse(2) if (batch * 3 * cols > 256 * 1024)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const T* s = src + b * 3 * cols + cb * kCols;
      const int64_t n = std::min(kCols, cols - cb * kCols);
      interleave3(s, s + cols, s + 2 * cols, dst + b * 3 * cols + 3 * cb * kCols, n);
      if constexpr (std::is_same_v<T, float>)
        if (seen)
          for (int r = 0; r < 3; ++r) (*seen)(s + r * cols, n);
    }
}

// Each of `batch` [rows, cols] matrices transposed.
void transpose(const Tensor& src, Tensor& dst, int64_t batch, int64_t rows, int64_t cols,
               const LayoutObserver* seen) {
  check(src, dst, seen);
  if (rows == 1 || cols == 1) {    // one channel, or one pixel: the same order in both layouts
    if (src.numel() == 0) return;  // (an empty tensor may have no buffer)
    std::memcpy(dst.raw(), src.raw(), src.nbytes());
    if (seen) (*seen)(src.data<float>(), src.numel());
    return;
  }
  if (dtype_size(src.dtype()) == 1 && rows == 3)
    transpose_three_rows(src.data<uint8_t>(), dst.data<uint8_t>(), batch, cols, nullptr);
  else if (dtype_size(src.dtype()) == 1 && rows <= 64)
    transpose_few_rows(src.data<uint8_t>(), dst.data<uint8_t>(), batch, rows, cols);
  else if (src.dtype() == DType::kFloat32 && rows == 3)
    transpose_three_rows(src.data<float>(), dst.data<float>(), batch, cols, seen);
  else if (dtype_size(src.dtype()) == 1)
    transpose_batched(src.data<uint8_t>(), dst.data<uint8_t>(), batch, rows, cols, nullptr);
  else
    transpose_batched(src.data<uint32_t>(), dst.data<uint32_t>(), batch, rows, cols, seen);
}

}  // namespace

void nchw_to_nhwc(const Tensor& src, Tensor& dst, const LayoutObserver* seen) {
  EDGEQ_CHECK(src.rank() == 4 && dst.rank() == 4, "layout conversion needs 4-D tensors");
  const Shape& s = src.shape();
  transpose(src, dst, s[0], s[1], s[2] * s[3], seen);
}

void nhwc_to_nchw(const Tensor& src, Tensor& dst, const LayoutObserver* seen) {
  EDGEQ_CHECK(src.rank() == 4 && dst.rank() == 4, "layout conversion needs 4-D tensors");
  const Shape& s = src.shape();  // [N,H,W,C]
  transpose(src, dst, s[0], s[1] * s[2], s[3], seen);
}

void transpose_matrices(const Tensor& src, Tensor& dst, int64_t batch, int64_t rows, int64_t cols) {
  EDGEQ_CHECK(batch * rows * cols == src.numel(), "transpose: ", batch, " matrices of ", rows,
              " x ", cols, " do not fill ", src.numel(), " elements");
  transpose(src, dst, batch, rows, cols, nullptr);
}

}  // namespace edgeq
