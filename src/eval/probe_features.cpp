#include "eval/probe_features.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "ir/onnx_io.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {

namespace {

struct ProbeModel {
  int64_t features = 0;  // the outputs' elements; -1 when a shape is not static
};

ProbeModel probe_model(const std::string& path, const char* role) {
  Graph g = load_onnx(path);
  yolo_image_input(g);  // throws when there is none
  ProbeModel m;
  for (const ValueInfo& o : g.outputs) {
    int64_t n = 1;
    for (int64_t d : o.shape) n = d < 0 || n < 0 ? -1 : n * d;
    m.features = n < 0 || m.features < 0 ? -1 : m.features + n;
  }
  EDGEQ_CHECK(!g.outputs.empty(), role, " '", path, "' has no outputs");
  return m;
}

}  // namespace

void check_probe_models(const std::string& model_path, const std::string& quantized_path,
                        int64_t max_features) {
  const ProbeModel m = probe_model(model_path, "probe model");
  EDGEQ_CHECK(m.features <= max_features, "probe: '", model_path, "' gives ", m.features,
              " features per image; probe the pooled taps of arm A (a cut)");
  if (quantized_path.empty()) return;
  const ProbeModel q = probe_model(quantized_path, "quantized model");
  EDGEQ_CHECK(q.features == m.features || q.features < 0 || m.features < 0,
              "probe: quantized model '", quantized_path, "' gives ", q.features,
              " features per image, '", model_path, "' ", m.features,
              " (quantize the same arm A model)");
}

Eigen::MatrixXd model_features(const std::string& model_path,
                               const std::vector<std::string>& images, ExecMode exec, int threads,
                               const std::function<bool(size_t, size_t)>& on_image) {
  Graph g = load_onnx(model_path);
  const std::string input = yolo_image_input(g).name;
  const int h = yolo_input_height(g), w = yolo_input_width(g);
  std::vector<std::string> outputs;
  for (const auto& o : g.outputs) outputs.push_back(o.name);
  ExecutorOptions eo;
  eo.threads = threads;
  eo.exec = exec;
  Executor ex(std::move(g), eo);
  Eigen::MatrixXd x;
  for (size_t i = 0; i < images.size(); ++i) {
    throw_if_interrupted();
    const Tensor t = preprocess_image(read_image(images[i]), h, w, nullptr);
    auto out = ex.run({{input, t}});
    std::vector<double> row;
    for (const std::string& name : outputs) {
      const Tensor& y = out.at(name);
      const float* p = y.data<float>();
      row.insert(row.end(), p, p + y.numel());
    }
    if (i == 0)
      x.resize(static_cast<Eigen::Index>(images.size()), static_cast<Eigen::Index>(row.size()));
    x.row(static_cast<Eigen::Index>(i)) =
        Eigen::Map<const Eigen::RowVectorXd>(row.data(), static_cast<Eigen::Index>(row.size()));
    if (on_image && !on_image(i + 1, images.size())) throw Cancelled();
  }
  return x;
}

}  // namespace edgeq
