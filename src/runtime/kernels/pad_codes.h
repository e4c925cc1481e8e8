// A convolution's input codes with its padding written out: QConv (qconv.cpp) runs its padded
// convolutions on such a copy, the padding filled with the input's zero-point code, so that the
// zero point folds into the bias and oneDNN runs its kernels without zero-point compensation
// (about a tenth faster on the 3x3 convs of yolo11n-pose at AVX2; issue 49).
#pragma once
#include <cstdint>

#include "runtime/kernels/conv_common.h"

namespace edgeq {

// Whether `g` pads its input on any side.
bool conv_pads(const ConvGeometry& g);

// `g` with its padding written into the input: input dims grown by the pads, pads 0.
ConvGeometry padded_input_geometry(const ConvGeometry& g);

// The codes x [N, C, H, W] of `g`'s input, in `layout` (NHWC or plain), into dst, laid out the
// same way with the input dims of padded_input_geometry(g): x inside, `code` in the padding.
void pad_codes(const uint8_t* x, const ConvGeometry& g, Layout layout, uint8_t code, uint8_t* dst);

}  // namespace edgeq
