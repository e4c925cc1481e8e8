// Graph rewrites the executor applies to its private copy of the graph before planning.
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"

namespace edgeq {

// Attribute the executor sets on a fused Conv or Sigmoid: "silu" means the node's output is
// x * sigmoid(x) of what it would otherwise output.

// Replaces Conv -> Sigmoid -> Mul(conv, sigmoid) (SiLU as exported by PyTorch) with one Conv
// with plan.silu. Skips patterns whose inner values are in `protect`
// (watched by hooks or graph outputs), read by other nodes, or quantized (a fake-quant step on
// the Conv, Sigmoid or Mul output: runtime/fake_quant.h). Returns the number fused.
int fuse_conv_silu(Graph& g, const std::set<std::string>& protect);

// Replaces Sigmoid -> Mul(x, sigmoid) with one Sigmoid whose plan.silu is set (one pass instead of
// two, for SiLUs whose Conv could not absorb them because its output is watched). Skips patterns
// whose Sigmoid output is protected or read elsewhere. Fake-quant steps move along: the Sigmoid's
// to plan.inner (applied before the multiplication), the Mul's to the fused node's output.
int fuse_sigmoid_mul(Graph& g, const std::set<std::string>& protect);

}  // namespace edgeq
