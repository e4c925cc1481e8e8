// Raising a graph's default-domain opset to 21 (for 16-bit QuantizeLinear / DequantizeLinear).
// Between opsets 13 and 21 the only changes that affect already valid nodes are Split (opset
// 18: an even split needs the num_outputs attribute) and the Reduce* ops other than ReduceSum
// (opset 18: axes moved from an attribute to an input); both are rewritten. Graphs below opset
// 13 are refused (Split, Squeeze, Unsqueeze changed form at 13).
#pragma once
#include "ir/graph.h"

namespace edgeq {

void upgrade_to_opset21(Graph& g);

}  // namespace edgeq
