// Calibration once per model for all of its arms: the study calibrates the full model with the
// pooled taps of arm A added (cut arm C with taps), whose values are a superset of every arm's
// values under the same names, and hands each arm the statistics of its own values
// (stats_for_arm), recorded for the arm's bytes. Calibrating the arm itself gives the same
// statistics (test StudyCalibration.ArmStatsEqualCalibratingTheArm).
#pragma once
#include <string>

#include "ir/graph.h"
#include "quant/stats.h"

namespace edgeq {

// The full model plus the default taps of arm A (ir/cut.h).
Graph calibration_model(const Graph& model);

// The statistics of `arm`'s values (graph inputs and node outputs) from stats of a model holding
// them all, recorded for the arm's file (`arm_sha256`). Throws naming a float value of the arm
// that has no statistics.
Stats stats_for_arm(const Stats& all, const Graph& arm, const std::string& arm_sha256);

}  // namespace edgeq
