// Planning passes for QDQ models in simulation mode (the executor's default). Weight and bias
// DequantizeLinear nodes are folded to float constants by constant folding; these passes handle
// the activations:
//   1. fold_qdq_pairs: QuantizeLinear -> DequantizeLinear with constant per-tensor parameters
//      becomes one FakeQuant node (domain "edgeq", its grid in plan.out).
//   2. drop_redundant_fake_quant: a FakeQuant of a value that is already on its grid (the output
//      of an op that only moves values, such as Reshape, Split, Slice, MaxPool or nearest Resize,
//      whose inputs carry the same fake quantization) changes nothing and goes.
//   3. fuse_fake_quant: a FakeQuant whose input has no other reader is absorbed by the producing
//      kernel (Conv as oneDNN post-ops; Sigmoid, binary arithmetic and Concat as an epilogue).
// Each keeps the graph's results bit for bit; none touches a value in `protect` (graph outputs,
// values watched by hooks).
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"
#include "runtime/kernel.h"

namespace edgeq {

// Returns the number of pairs folded. `descs` gives every value's type (the Q output's type sets
// the code range) and constants (scale and zero point must be constants).
int fold_qdq_pairs(Graph& g, const ValueDescs& descs, const std::set<std::string>& protect);
int drop_redundant_fake_quant(Graph& g, const std::set<std::string>& protect);
int fuse_fake_quant(Graph& g, const std::set<std::string>& protect);

// Nodes whose kernel can apply a fake-quant step (plan.out) to its output.
bool absorbs_fake_quant(const Node& n);

}  // namespace edgeq
