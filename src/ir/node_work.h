// The multiply-add work of a node: one home for what summaries (analysis/model_summary.h) and
// the executor's profile (achieved rate against the CPU's peak) count.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// Shape of any value of the graph (graph inputs, node outputs, initializers).
using ShapeOf = std::function<Shape(const std::string&)>;

// 2 x the multiply-accumulates of the node (Conv, edgeq's QConv on codes, ConvTranspose, MatMul,
// Gemm), 0 for ops without a reduction.
int64_t node_flops(const Node& n, const ShapeOf& shape_of);

}  // namespace edgeq
