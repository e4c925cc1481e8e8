// Statistics for a cut of a calibrated model (an arm: a sub-graph whose values keep their names):
// calibrate the full model once and hand each arm its share, as the study does.
#pragma once
#include "edgeq/calibrate.h"
#include "edgeq/model.h"

namespace edgeq {

// The statistics of `arm`'s graph inputs and node outputs taken from `stats` (of a model holding
// them all), recorded for the arm's bytes, so quantize() and doctor() take them for the arm.
// Throws edgeq::Error naming a float output of the arm that has no statistics.
CalibrationStats stats_for_arm(const CalibrationStats& stats, const Model& arm);

}  // namespace edgeq
