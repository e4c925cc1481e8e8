// What int16 pair saturation (runtime/int8_pairs.h) does to one int8 convolution: the pairs of a
// conv's weights that ONNX Runtime's kernels add into one int16 and that can overflow it, and,
// for one input of u8 codes, which of their sums leave int16 and by how much. The emulation
// (kernels/qconv.cpp, --emulate avx2) adds the amounts to its exact sums; the doctor
// (analysis/int8_saturation.h) counts them.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "runtime/kernels/conv_common.h"

namespace edgeq {

// Output channel o, and the two taps of the pair: input channel and kernel position, and weight.
struct SaturatingPair {
  int32_t o, c_a, y_a, x_a, c_b, y_b, x_b, w_a, w_b;
};

// The pairs of `weights` (int8 [O, C/group, kH, kW]) in PairOrder::kOnnxRuntime whose two weights
// could overflow an int16.
std::vector<SaturatingPair> saturating_pairs(const Tensor& weights, int64_t group);

// Over input `x` (u8 codes, one image batch of geometry `g`, in `layout`; a padded tap reads
// `pad_code`): how many of the pairs' sums leave int16. With `acc` (int32 sums of the output, in
// `layout`) each such sum's saturated amount (kept - exact) is added to its output. Results do
// not depend on the number of threads.
int64_t apply_pair_saturation(const ConvGeometry& g, Layout layout, const uint8_t* x,
                              int32_t pad_code, const std::vector<SaturatingPair>& pairs,
                              int32_t* acc);

}  // namespace edgeq
