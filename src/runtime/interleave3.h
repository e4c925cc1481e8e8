// Three float planes interleaved: dst[3 i + k] = plane_k[i] (an RGB image from NCHW to NHWC, the
// first layout conversion of every YOLO run). A plain transpose stores with stride 3; this one
// builds whole vectors with permutes (AVX-512, AVX2) at the level core/simd.h picks.
#pragma once
#include <cstdint>

namespace edgeq {

void interleave3(const float* p0, const float* p1, const float* p2, float* dst, int64_t n);
// The same for bytes (an image's uint8 codes), with byte shuffles.
void interleave3(const uint8_t* p0, const uint8_t* p1, const uint8_t* p2, uint8_t* dst, int64_t n);

}  // namespace edgeq
