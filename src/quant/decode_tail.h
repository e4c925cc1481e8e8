// The YOLO head's pixel-space decode tail, found by structure (ir/head_decode.h): the
// box decode's Div / Sub / Concat and the corners they read (grid units; at 8 bit the corners
// alone double W8A8's box error: docs/status.md, "Measurements moved from code comments"), the
// stride Muls' inputs
// and outputs, the keypoint decode values in grid units and pixels, and the Concats / move-only
// ops that carry them to the graph outputs. These values span hundreds of pixels: at 8 bit a step
// is a few pixels (a 640 px span / 255), and a Concat that also carries scores (output0) rounds
// every score to 0 (docs/lessons.md, lesson 3). `quantize --a16 decode` (the W8A8 default) keeps
// them at 16 bit, and the constants of the nodes that write them stay exact or 16-bit
// (encode/qdq_export.h).
#pragma once
#include <set>
#include <string>

#include "calib/stats.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "ir/graph.h"

namespace edgeq {

// Empty when the graph has no YOLO decode (no stride Mul).
std::set<std::string> decode_tail_values(const Graph& g);
// The nodes that assemble the graph outputs: each Concat of the tail that joins a tail value with
// a value from outside it (the scores, the keypoint visibilities), and every node downstream of
// one that writes a tail value. Under one encoding, even at 16 bit, a score shares the pixels'
// step (~0.01 on yolo11n-pose's output0): it moves by up to half of that, detections near the
// threshold flip and scores below a step become 0 (on the dev split W8A16 lost 7 of 188
// detections and half its low-score predictions). Where the runtime may concatenate in float
// (placements ort and cpu) these nodes stay float (`exclude_output_assembly`).
std::set<std::string> output_assembly_nodes(const Graph& g);
// Adds output_assembly_nodes(g) to config.exclude_nodes when the placement lets a Concat run in
// float (not qnn, whose targets run every op on the accelerator). Call before planning.
void exclude_output_assembly(const Graph& g, QuantConfig& config);
// Hands the tail to `config`: all of it to config.decode_tail and, when `a16`, the values that get
// an encoding under the plan (what `--a16 decode` names) to config.a16. Returns those quantized
// values (empty when the model has no decode).
std::set<std::string> mark_decode_tail(const Graph& g, const QuantPlan& plan, bool a16,
                                       QuantConfig& config);

// The plan `quantize` and `study` start from, in that order: outputs assembled in float unless
// `float_assembly` is false (`--a16 none`), the plan for `stats`, the decode tail marked (at 16
// bit when `a16_tail`). `tail` as mark_decode_tail returns it.
struct TailPlan {
  QuantPlan plan;
  std::set<std::string> tail;
};
TailPlan plan_with_decode_tail(const Graph& g, const Stats& stats, bool float_assembly,
                               bool a16_tail, QuantConfig& config);

}  // namespace edgeq
