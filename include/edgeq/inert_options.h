// Options that do nothing with the others as they are: percentile without range "percentile",
// auto_n without a search, repair_n / seed / repair_memory_mib without weight repair (images, and
// gptq, cle or bias_correction), a doctor's top_percent without sensitivity and max_images
// without images. validate() and doctor() refuse those set to other than their defaults; a front
// end that knows which options it was given refuses those given at all, whatever their value.
#pragma once
#include <functional>
#include <string>

namespace edgeq {

struct QuantizeOptions;
struct DoctorOptions;

// How the caller spells an option it was given (by the option's name, e.g. "percentile"), or ""
// for one it was not given.
using GivenOption = std::function<std::string(const std::string& option)>;

// Refuses the first inert option of `o` that `given` spells, with one line "SPELLING does nothing
// without WHAT IT NEEDS".
void refuse_inert_given(const QuantizeOptions& o, const GivenOption& given);
void refuse_inert_given(const DoctorOptions& o, const GivenOption& given);

}  // namespace edgeq
