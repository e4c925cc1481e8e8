// A 1x1 float convolution of our own that writes its output in the plain (NCHW) layout, reading
// its input plain or NHWC: y[o][p] = bias[o] + w[o][0] x[0][p] + w[o][1] x[1][p] + ... in that
// order (products then sums, no fused multiply-add), the same bits at every SIMD level and
// thread count. The planner (runtime/layout_choice.h) gives it the pointwise Convs whose outputs
// are read plain (YOLO's head convs before their Reshapes, the DFL's conv after its Softmax), so
// no layout conversion runs on either side; oneDNN's plain convolution is a GEMM whose sums
// follow the thread count, and its NHWC-in, NCHW-out one a slow reference kernel.
#pragma once
#include <memory>
#include <vector>

#include "runtime/kernel.h"

namespace edgeq {

// A float Conv with a constant [O, C, 1, 1] weight, group 1, stride 1, no padding and no fused
// SiLU (an output fake-quant step is fine): what PointwiseConv runs.
bool is_pointwise_conv(const Node& node, const std::vector<ValueDesc>& inputs);

// The kernel for such a node, `init.layout` the input's layout; the output is plain.
std::unique_ptr<Kernel> make_pointwise_conv(const KernelInit& init);

}  // namespace edgeq
