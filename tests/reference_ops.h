// Plain reference implementations of the ONNX operators edgeq runs, for tests only.
// Every output element is computed on its own with straight loops and double arithmetic;
// nothing here is shared with the kernels in src/runtime/kernels.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq::ref {

// Runs `node` on `inputs` (an omitted optional input is a Tensor with dtype kUndefined).
// Returns one tensor per node output. Throws for ops it does not know.
std::vector<Tensor> run(const Node& node, const std::vector<Tensor>& inputs, int64_t opset);

// Layout conversions of a 4-D tensor: [N,C,H,W] <-> [N,H,W,C].
Tensor to_nhwc(const Tensor& nchw);
Tensor to_nchw(const Tensor& nhwc);

// Element i of any numeric tensor as double.
double value_at(const Tensor& t, int64_t i);

}  // namespace edgeq::ref
