// Planning pass 1: every value's type and shape, and constant folding. Nodes whose inputs are all
// constants (and Shape of a static input) run once here; their outputs become constants.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "runtime/kernel.h"

namespace edgeq {

struct ShapePass {
  std::map<std::string, Tensor> constants;           // initializers and folded values
  std::unordered_map<std::string, ValueDesc> descs;  // every value; .constant points into constants
  std::vector<std::string> activation_order;         // run-time values in execution order
  std::vector<bool> folded;                          // per node of the (sorted) graph
};

// `g` must be topologically sorted. Throws for dynamic input shapes, undefined values and
// unsupported ops.
ShapePass infer_and_fold(const Graph& g);

}  // namespace edgeq
