#include "edgeq/arm_stats.h"

#include "api/api_impl.h"
#include "calib/arm_stats.h"

namespace edgeq {

CalibrationStats stats_for_arm(const CalibrationStats& stats, const Model& arm) {
  return make_stats(stats_for_arm(impl_of(stats).stats, impl_of(arm).graph, arm.sha256()),
                    impl_of(stats).source);
}

}  // namespace edgeq
