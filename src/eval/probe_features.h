// Features for task probes: a model (typically arm A, whose outputs are pooled taps) run on each
// image, letterboxed for its image input; one row per image, the model's outputs flattened and
// concatenated in output order.
#pragma once
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "runtime/executor.h"

namespace edgeq {

Eigen::MatrixXd model_features(const std::string& model_path,
                               const std::vector<std::string>& images, ExecMode exec, int threads);

}  // namespace edgeq
