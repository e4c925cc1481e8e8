// Which physical layout a node runs in (see Layout in kernel.h; which ops can run NHWC is an op
// trait, ir/op_traits.h): Conv always NHWC; pooling and Resize when their input is already NHWC;
// Concat, Split and elementwise ops when all their 4-D activation inputs are NHWC (elementwise:
// same shape as the output, or one element). A pointwise Conv whose output is read plain writes
// it plain (plain_pointwise_outputs).
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace edgeq {

// A 4-D float32 activation, or one stored as 8-bit codes (--exec int8): may be stored NHWC.
bool is_activation_4d(const ValueDesc& d);

// `input_is_nhwc(i)`: input i is an activation currently stored NHWC.
Layout choose_layout(const Node& node, const std::vector<ValueDesc>& inputs,
                     const Shape& output_shape, const std::function<bool(size_t)>& input_is_nhwc);

// The outputs of the pointwise Convs (kernels/pointwise_conv.h) to write in the plain layout:
// those whose every reader would run plain anyway (an op with no NHWC kernel, another such Conv),
// or is an NHWC-capable op without weights (Concat, elementwise, ...) whose other activation
// inputs are such outputs too and whose own outputs are read plain the same way. So YOLO's head
// convs feed their Concats and Reshapes with no layout conversion between. Not where the way
// leads to a graph output first: a Conv computes the same bits in a model and in a cut of it (an
// arm ends where the full model's NHWC Convs go on; the study's per-arm statistics rely on it).
std::set<std::string> plain_pointwise_outputs(const std::vector<Node>& nodes,
                                              const ValueDescs& descs,
                                              const std::set<std::string>& graph_outputs);

}  // namespace edgeq
