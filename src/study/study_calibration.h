// Calibration once per model for all of its arms: the study calibrates the full model with the
// pooled taps of arm A added (cut arm C with taps), whose values are a superset of every arm's
// values under the same names, and hands each arm the statistics of its own values
// (stats_for_arm, edgeq/arm_stats.h), recorded for the arm's bytes. Calibrating the arm itself
// gives the same statistics (test StudyCalibration.ArmStatsEqualCalibratingTheArm).
#pragma once
#include "calib/arm_stats.h"
#include "ir/graph.h"

namespace edgeq {

// The full model plus the default taps of arm A (ir/cut.h).
Graph calibration_model(const Graph& model);

}  // namespace edgeq
