// One block of a 4-byte matrix transposed: dst[c * dst_stride + r] = src[r * src_stride + c] for
// r < rows, c < cols. AVX2 and AVX-512 move 8 x 8 sub-blocks through registers (unpacks,
// shuffles, lane permutes); edges and the scalar level go element by element. Pure data
// movement: every level gives the same bits. The NHWC <-> NCHW layout conversions use it.
#pragma once
#include <cstdint>

namespace edgeq {

void transpose_tile(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride,
                    int64_t rows, int64_t cols);

}  // namespace edgeq
