#include "runtime/kernels/kernel_util.h"

#include "core/error.h"

namespace edgeq {
namespace {

template <typename T>
void copy_strided_typed(T* dst, const T* src, const Shape& shape,
                        const std::vector<int64_t>& strides, int64_t offset) {
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  const int64_t outer = product(shape, 0, rank - 1);
  if (inner == 0 || outer == 0) return;
  const std::vector<int64_t> out_strides =
      contiguous_strides(Shape(shape.begin(), shape.end() - 1));
#pragma omp parallel for if (outer * inner > kParallelNumel)
  for (int64_t o = 0; o < outer; ++o) {
    // Unravel the outer index into the source offset.
    int64_t rem = o, src_off = offset;
    for (int d = 0; d < rank - 1; ++d) {
      int64_t idx = rem / out_strides[d];
      rem -= idx * out_strides[d];
      src_off += idx * strides[d];
    }
    T* out = dst + o * inner;
    const T* in = src + src_off;
    if (inner_stride == 1) {
      std::memcpy(out, in, inner * sizeof(T));
    } else if (inner_stride == 0) {
      for (int64_t i = 0; i < inner; ++i) out[i] = in[0];
    } else {
      for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
    }
  }
}

}  // namespace

void copy_strided(void* dst, const void* src, size_t elem_size, const Shape& out_shape,
                  const std::vector<int64_t>& src_strides, int64_t src_offset) {
  switch (elem_size) {
    case 1:
      return copy_strided_typed(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src),
                                out_shape, src_strides, src_offset);
    case 2:
      return copy_strided_typed(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src),
                                out_shape, src_strides, src_offset);
    case 4:
      return copy_strided_typed(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src),
                                out_shape, src_strides, src_offset);
    case 8:
      return copy_strided_typed(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src),
                                out_shape, src_strides, src_offset);
    default:
      fail("copy_strided: unsupported element size ", elem_size);
  }
}

}  // namespace edgeq
