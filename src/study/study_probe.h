// The study's task probe on arm A: features of the FP32 arm and of its quantized model on the
// labelled test images, and the three readings (eval/probe.h) as JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/probe.h"

namespace edgeq {

nlohmann::json probe_step(const std::string& fp32_path, const std::string& q_path,
                          const std::vector<std::string>& images, const ProbeLabels& labels,
                          int folds, double l2, int threads);

}  // namespace edgeq
