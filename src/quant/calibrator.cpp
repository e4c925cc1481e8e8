#include "quant/calibrator.h"

namespace edgeq {

Calibrator::Calibrator(Graph graph, std::string model_sha256, std::string preprocessing,
                       ExecutorOptions opt)
    : executor_(std::move(graph), opt) {
  stats_.model_sha256 = std::move(model_sha256);
  stats_.preprocessing = std::move(preprocessing);
  executor_.add_hook("*", [this](const std::string& v, const Tensor& t) {
    if (t.dtype() == DType::kFloat32) stats_.observe(v, t);
  }, HookView::kAsStored);  // statistics ignore element order: skip NHWC -> NCHW copies
}

void Calibrator::add(const std::map<std::string, Tensor>& inputs) {
  executor_.run(inputs);
  stats_.images++;
}

}  // namespace edgeq
