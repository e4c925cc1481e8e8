// Types and shapes of a graph's values from ONNX's own shape inference (libonnx), without
// planning the graph: for ir/ code that must know them (the outputs a cut adds).
#pragma once
#include <map>
#include <string>

#include "ir/graph.h"

namespace edgeq {

// Every value whose type ONNX's inference works out (graph inputs, initializers, node outputs),
// by name; a dimension it cannot work out is -1. The graph outputs' declared types are ignored.
// Nodes of domains ONNX does not know leave their outputs out.
std::map<std::string, ValueInfo> infer_value_infos(const Graph& g);

// Sets the dtype and shape of every graph output; throws naming an output whose type cannot be
// inferred.
void infer_output_shapes(Graph& g);

}  // namespace edgeq
