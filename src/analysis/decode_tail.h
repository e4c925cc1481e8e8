// The YOLO head's pixel-space decode tail, found by structure (analysis/head_decode.h): the
// box decode's Div / Sub / Concat (grid units), the stride Muls' inputs and outputs, the
// keypoint decode values in grid units and pixels, and the Concats / move-only ops that carry
// them to the graph outputs. These values span hundreds of pixels: at 8 bit a step is ~2.7 px,
// and a Concat that also carries scores (output0) rounds every score to 0 (DESIGN.md lesson 3).
// `quantize --a16 decode` keeps them at 16 bit.
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"
#include "quant/quant_plan.h"

namespace edgeq {

// Empty when the graph has no YOLO decode (no stride Mul).
std::set<std::string> decode_tail_values(const Graph& g);
// The decode tail's values that get an encoding under the plan (what `--a16 decode` names).
std::set<std::string> quantized_decode_tail(const Graph& g, const QuantPlan& plan);

}  // namespace edgeq
