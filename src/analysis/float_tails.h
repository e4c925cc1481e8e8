// Float tails and placement for a target.
//   In a QDQ model, a node (other than Q/DQ and shape ops) runs quantized when every float data
//   input comes from a DequantizeLinear (or a constant) and every output is read only by
//   QuantizeLinear nodes. Other nodes run in float: an NPU runs them elsewhere or refuses the
//   model; a chain of them ending at a graph output is a float tail (e.g. a DFL decode).
//   Graph inputs read by anything but a QuantizeLinear, and outputs not written by a
//   DequantizeLinear, are float I/O.
//   For every model (QDQ or float), ops the target's table does not run quantized are reported
//   as "would run on CPU".
#pragma once
#include <vector>

#include "analysis/finding.h"
#include "analysis/op_support.h"
#include "ir/graph.h"

namespace edgeq {

// Indices of the nodes of a QDQ graph that run in float (empty when the graph has no Q/DQ).
std::vector<int> float_nodes(const Graph& qdq);

std::vector<Finding> float_tail_findings(const Graph& model, const TargetOps& target);
std::vector<Finding> op_support_findings(const Graph& model, const TargetOps& target);

}  // namespace edgeq
