// Conversions between the plain NCHW layout and NHWC for 4-D float tensors.
#pragma once
#include "core/tensor.h"

namespace edgeq {

// src physical [N,C,H,W] -> dst physical [N,H,W,C]; dst preallocated.
void nchw_to_nhwc(const Tensor& src, Tensor& dst);
// src physical [N,H,W,C] -> dst physical [N,C,H,W]; dst preallocated.
void nhwc_to_nchw(const Tensor& src, Tensor& dst);

}  // namespace edgeq
