// SiLU as exported graphs write it, Mul(x, Sigmoid(x)), and the values that hold nothing but SiLU
// outputs. SiLU falls to its minimum, -0.2785 at x = -1.2785, and is flat there, so every input
// from about -2.5 to -0.5 lands within 0.03 of it: a pile of values right at the minimum. An 8-bit
// encoding whose grid misses that point by a fraction of a step moves the whole pile the same
// way, a shift rounding does not average away (quant/activation_encodings.h puts a grid point on
// it).
#pragma once
#include <map>
#include <set>
#include <string>

#include "ir/graph.h"

namespace edgeq {

// SiLU's minimum, x * sigmoid(x) at x = kSiluArgMin (core/fast_math.h).
double silu_min();

// Which input of `mul` is x when it computes Mul(x, Sigmoid(x)) (0 or 1), else -1.
int silu_input_index(const Graph& g, const Node& mul);
// Whether `mul` computes Mul(x, Sigmoid(x)).
bool is_silu_mul(const Graph& g, const Node& mul);

// Values written by a SiLU Mul, or by a node that only moves values (Concat, Split, Reshape,
// MaxPool, nearest Resize, ...) whose data inputs all are such values.
std::set<std::string> silu_values(const Graph& g);

// SiLUs whose input x is read by nothing but their own Sigmoid and Mul (and is not a graph
// output): x -> the Sigmoid's output, the gate. Whatever x's encoding does where the quantized
// gate is 0 cannot be seen past the Mul (quant/silu_gate.h).
std::map<std::string, std::string> silu_gates(const Graph& g);

}  // namespace edgeq
