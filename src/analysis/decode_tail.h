// The YOLO head's pixel-space decode tail, found by structure (analysis/head_decode.h): the
// box decode's Div / Sub / Concat and the corners they read (grid units; at 8 bit the corners
// alone took W8A8's mean box error on yolo11n-pose from 2.4 to 5.3 px), the stride Muls' inputs
// and outputs, the keypoint decode values in grid units and pixels, and the Concats / move-only
// ops that carry them to the graph outputs. These values span hundreds of pixels: at 8 bit a step
// is ~2.7 px, and a Concat that also carries scores (output0) rounds every score to 0 (DESIGN.md
// lesson 3). `quantize --a16 decode` (the W8A8 default) keeps them at 16 bit, and the constants of
// the nodes that write them stay exact or 16-bit (quant/qdq_export.h).
#pragma once
#include <set>
#include <string>

#include "ir/graph.h"
#include "quant/quant_config.h"
#include "quant/quant_plan.h"

namespace edgeq {

// Empty when the graph has no YOLO decode (no stride Mul).
std::set<std::string> decode_tail_values(const Graph& g);
// Hands the tail to `config`: all of it to config.decode_tail and, when `a16`, the values that get
// an encoding under the plan (what `--a16 decode` names) to config.a16. Returns those quantized
// values (empty when the model has no decode).
std::set<std::string> mark_decode_tail(const Graph& g, const QuantPlan& plan, bool a16,
                                       QuantConfig& config);

}  // namespace edgeq
