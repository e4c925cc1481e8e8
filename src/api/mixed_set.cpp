#include "edgeq/mixed_set.h"

#include "edgeq/doctor.h"

namespace edgeq {

MixedSet mixed_set(const DoctorReport& report) {
  MixedSet m{report.mixed, {}};
  for (const SensitivityRow& r : report.ranking) m.ranking.push_back({r.value, r.loss});
  return m;
}

}  // namespace edgeq
