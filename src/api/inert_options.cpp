#include "edgeq/inert_options.h"

#include "api/inert_options.h"
#include "core/error.h"

namespace edgeq {
namespace {

void refuse_given(const std::vector<InertOption>& inert, const GivenOption& given) {
  for (const InertOption& o : inert) {
    const std::string spelled = given ? given(o.name) : std::string();
    if (!spelled.empty()) fail(spelled, " does nothing without ", o.needs);
  }
}

}  // namespace

void refuse_inert_given(const QuantizeOptions& o, const GivenOption& given) {
  refuse_given(inert_quantize_options(o), given);
}

void refuse_inert_given(const DoctorOptions& o, const GivenOption& given) {
  refuse_given(inert_doctor_options(o), given);
}

}  // namespace edgeq
