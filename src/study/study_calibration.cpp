#include "study/study_calibration.h"

#include "ir/cut.h"

namespace edgeq {

Graph calibration_model(const Graph& model) {
  CutSpec spec;
  spec.arm = Arm::kC;
  spec.taps = default_tap_layers();
  spec.taps_given = true;
  return cut_model(model, spec);
}

}  // namespace edgeq
