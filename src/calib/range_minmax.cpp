// minmax: the observed range, outliers included.
#include "calib/range_scheme.h"

namespace edgeq {
namespace {

class MinMaxScheme : public RangeScheme {
 public:
  std::string name() const override { return "minmax"; }
  Range compute(const Histogram& h, const RangeTarget&) const override {
    if (h.empty()) return {};
    return {h.min(), h.max()};
  }
};

}  // namespace

std::unique_ptr<RangeScheme> make_minmax_scheme() {
  return std::make_unique<MinMaxScheme>();
}

}  // namespace edgeq
