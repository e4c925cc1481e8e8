// Which quantize --placement a target wants (its op table's "placement"), and which one a QDQ
// model looks made with, guessed from where its Q/DQ pairs sit:
//   cpu  no Conv output that a SiLU reads is quantized (only what compute ops read is);
//   qnn  every quantized Concat's inputs and output share one encoding;
//   ort  otherwise.
// The doctor reports both as one info finding (ops a target cannot run quantized are reported
// apart, as float-tail and placement findings); a mismatch sorts first among the infos.
#pragma once
#include <optional>
#include <string>

#include "analysis/finding.h"
#include "analysis/op_support.h"
#include "ir/graph.h"

namespace edgeq {

// nullopt for a model without Q/DQ.
std::optional<Placement> guess_placement(const Graph& model);
Finding placement_advice(const Graph& model, const TargetOps& target);

}  // namespace edgeq
