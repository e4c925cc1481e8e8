// Which physical layout a node runs in (see Layout in kernel.h; which ops can run NHWC is an op
// trait, ir/op_traits.h): Conv always NHWC; pooling and Resize when their input is already NHWC;
// Concat, Split and elementwise ops when all their 4-D activation inputs are NHWC (elementwise:
// same shape as the output, or one element).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace edgeq {

// A 4-D float32 activation, or one stored as 8-bit codes (--exec int8): may be stored NHWC.
bool is_activation_4d(const ValueDesc& d);

// `input_is_nhwc(i)`: input i is an activation currently stored NHWC.
Layout choose_layout(const Node& node, const std::vector<ValueDesc>& inputs,
                     const Shape& output_shape, const std::function<bool(size_t)>& input_is_nhwc);

}  // namespace edgeq
