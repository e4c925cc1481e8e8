// The options of a public call that do nothing with the others as they are, each by its Python
// name with what it needs (core/option_range.h). The call refuses those set to other than their
// defaults (refuse_set); a front end that knows what was given refuses them given at all
// (refuse_inert_given, edgeq/inert_options.h), so `--percentile 99.99 --range minmax` is refused
// too.
#pragma once
#include <vector>

#include "core/option_range.h"
#include "edgeq/doctor.h"
#include "edgeq/quantize.h"

namespace edgeq {

// percentile without range "percentile", auto_n without a search (auto), repair_n / seed /
// repair_memory_mib without weight repair (images, and gptq (the w8a16 default), cle or
// bias_correction).
std::vector<InertOption> inert_quantize_options(const QuantizeOptions& o);
// top_percent without sensitivity; max_images without images.
std::vector<InertOption> inert_doctor_options(const DoctorOptions& o);

}  // namespace edgeq
