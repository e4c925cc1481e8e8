// What `edgeq study` runs: models, image sets, schemes, arms, target and the knobs of each step,
// from command-line flags or a JSON config with the same keys (study.json).
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/io_guard.h"
#include "core/option_range.h"
#include "edgeq/study.h"

namespace edgeq {

// A scheme of the study: "w8a16", "w8a8", or "w8a8-autoP" (W8A8 with `quantize --auto P`).
struct StudyScheme {
  std::string name;  // as given
  Scheme base = Scheme::kW8A8;
  double auto_percent = 0;  // 0: no mixed-precision search
};
// Throws one line listing the forms for anything else.
StudyScheme parse_study_scheme(const std::string& s);

// The study's configuration is the public one (include/edgeq/study.h): its defaults live there.
using StudyOptions = StudyConfig;

// The JSON form (every key optional except where run_study needs it; "models", "schemes" and
// "arms" take an array or a comma-separated string). Throws naming an unknown key or a wrong type.
StudyOptions study_options_from_json(const nlohmann::json& j, StudyOptions base = {});
nlohmann::json study_options_to_json(const StudyOptions& o);
// Checks everything that can be checked before running (files exist, schemes, arms, numbers, no
// option set where it does nothing; no input among the files the study writes).
void check_study_options(const StudyOptions& o);
// inert_study_options, study_inputs and study_out_folder: edgeq/study.h.
// The placement given, or the one `auto` stands for with this target.
Placement study_placement(const StudyOptions& o);

}  // namespace edgeq
