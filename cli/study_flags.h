// The study's configuration on the command line: a flag per StudyConfig field, and --config with
// the same keys as JSON (flags given win over the file).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "edgeq/study.h"

namespace edgeq::cli {

struct StudyFlags {
  std::string config, models, schemes, arms;
  StudyConfig o;  // what flags parse into; only flags given override the config file
  std::vector<std::pair<std::string, std::function<void(StudyConfig&)>>> given;
};

void add_study_config_flags(CLI::App* cmd, StudyFlags& f);
// The configuration: --config's file, then the flags `cmd` was given.
StudyConfig study_config_from_flags(const StudyFlags& f, const CLI::App& cmd);

}  // namespace edgeq::cli
