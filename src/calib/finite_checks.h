// Refusals before and after calibration: a model whose float weights hold NaN / Inf, and
// activations that produced NaN / Inf while calibrating. Each throws one line naming the first
// tensor at fault.
#pragma once
#include "calib/stats.h"
#include "ir/graph.h"

namespace edgeq {

// Float initializers and Constant node values, in name order.
void check_finite_weights(const Graph& g, const std::string& model_path);
// The first value in execution order (graph inputs, then node outputs) whose statistics counted
// NaN or Inf.
void check_finite_activations(const Graph& g, const Stats& stats);

}  // namespace edgeq
