// What the doctor says about a model's graph inputs and outputs: which carry codes (quantize
// --quantize-io) and in what encoding, the step a shared output encoding leaves for the scores
// beside the pixel coordinates, and what the target's runtime does with quantized or float I/O.
#pragma once
#include <vector>

#include "analysis/finding.h"
#include "analysis/op_support.h"
#include "ir/graph.h"

namespace edgeq {

std::vector<Finding> io_findings(const Graph& model, const TargetOps& target);

}  // namespace edgeq
