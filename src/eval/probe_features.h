// Features for task probes: a model (typically arm A, whose outputs are pooled taps) run on each
// image, letterboxed for its image input; one row per image, the model's outputs flattened and
// concatenated in output order.
#pragma once
#include <Eigen/Dense>
#include <functional>
#include <string>
#include <vector>

#include "runtime/executor.h"

namespace edgeq {

// Checks what model_features() would find out only after running every image: `model_path` (and
// `quantized_path` unless empty) load as models with an image input, the quantized model has the
// FP32 model's number of features, and the features per image (the outputs' elements) are
// at most `max_features` where the shapes say. Throws one line naming the file.
void check_probe_models(const std::string& model_path, const std::string& quantized_path,
                        int64_t max_features);

// After each image, `on_image(done, total)`; false stops the run (edgeq::Cancelled).
Eigen::MatrixXd model_features(const std::string& model_path,
                               const std::vector<std::string>& images, ExecMode exec, int threads,
                               const std::function<bool(size_t, size_t)>& on_image = {});

}  // namespace edgeq
