// Bias correction (Nagel et al. 2019, "Data-Free Quantization", in its empirical form): rounding a
// Conv's weights from W to W_q moves output channel o by (W_q - W)[o] . x for an input column x,
// on average by
//     shift_o = sum_k (W_q - W)[o][k] * E[x_k],
// which the corrected bias b'_o = b_o - shift_o takes back. E[x] is the mean im2col column of the
// conv's FP32 input over the calibration images (ConvInputMoments::mean: every tap of the kernel
// at every output position, padding taps 0), so the correction is exact in expectation at the
// padded border and for strided convs too. Only the mean shift is removed; the error's variance
// stays.
#pragma once
#include "core/tensor.h"
#include "repair/conv_input_moments.h"

namespace edgeq {

// `w`, `w_quantized`: float Conv weights [O, C/group, kH, kW] before and after rounding (the same
// shape); `bias`: float [O], or nullptr for a conv without one (taken as 0); `m`: the conv's input
// moments (first moment only is read). Returns the corrected float bias [O], computed in double.
Tensor corrected_bias(const Tensor& w, const Tensor& w_quantized, const Tensor* bias,
                      const ConvInputMoments& m);

}  // namespace edgeq
