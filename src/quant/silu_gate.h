// Quantized SiLU gates. In Mul(x, Sigmoid(x)) with the Sigmoid's output on an integer grid (0 is
// always on it, core/encoding.h), every x whose sigmoid lies below half a step of that grid
// gates to exactly 0, and so does the Mul, whatever code x itself gets. x's encoding need not
// cover what lies below: its range may start there, and the steps above get finer. On
// yolo11n-pose W8A8 the conv outputs feeding SiLUs reach far below where an 8-bit gate closes;
// starting their ranges there gives finer steps (what it gained: docs/status.md, "Measurements
// moved from code comments") and changes no output where the gate was closed.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "encode/weight_encoding.h"
#include "ir/graph.h"

namespace edgeq {

// The x below which a gate with this (Sigmoid output) encoding is 0 after quantization, with a
// margin (sigmoid(x) at a quarter of a step, half of where rounding turns to 0) so that x's own
// rounding at the new edge cannot reopen it; nullopt for a float or per-channel gate.
std::optional<double> gate_closed_below(const TensorEncoding& gate);

// For each SiLU input x that nothing but its SiLU reads (ir/silu.h silu_gates) and whose gate
// has an integer encoding in `encodings`: the x below which nothing x holds is seen.
std::map<std::string, double> silu_gate_floors(
    const Graph& g, const std::map<std::string, TensorEncoding>& encodings);

}  // namespace edgeq
