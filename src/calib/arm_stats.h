// The statistics of a cut of a calibrated model (an arm, ir/cut.h) taken from the model's: the
// study calibrates the full model once (with arm A's taps added) and hands each arm its share.
#pragma once
#include <string>

#include "calib/stats.h"
#include "ir/graph.h"

namespace edgeq {

// The statistics of `arm`'s values (graph inputs and node outputs) from stats of a model holding
// them all, recorded for the arm's file (`arm_sha256`). Throws naming a float value of the arm
// that has no statistics.
Stats stats_for_arm(const Stats& all, const Graph& arm, const std::string& arm_sha256);

}  // namespace edgeq
