// edgeq/probe.h: a probe's inputs checked before any image is read, then each model's features
// (eval/probe_features.h) and the cross-validated readings (eval/probe.h).
#include "edgeq/probe.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_text.h"
#include "eval/probe.h"
#include "eval/probe_features.h"
#include "vision/image_io.h"

namespace edgeq {
namespace {

// More features than this are not pooled taps: a probe wants arm A of a cut.
constexpr Eigen::Index kMaxFeatures = 1 << 16;

Eigen::MatrixXd features(const std::string& model, const std::vector<std::string>& images,
                         int threads, const ProgressCallback& progress) {
  const std::string task = "features of " + model;
  auto report = [&](size_t done) {
    return !progress ||
           progress({ProgressEvent::Kind::kStep, task, done, images.size(), std::string()});
  };
  if (!report(0)) throw Cancelled();
  return model_features(model, images, ExecMode::kSimulate, threads,
                        [&](size_t done, size_t) { return report(done); });
}

}  // namespace

ProbeSetup prepare_probe(const std::string& model, const std::string& quantized,
                         const std::string& images, const std::string& labels_csv,
                         const std::string& task, int folds) {
  ProbeSetup s;
  s.model = model;
  s.quantized = quantized;
  s.labels = read_probe_labels(labels_csv, task);
  const std::vector<std::string> found = expand_image_paths(images);
  s.listed = found.size();
  s.images = probe_image_paths(s.labels, found);
  // What would fail after the features were extracted fails now.
  probe_folds(s.labels, folds);
  check_probe_models(model, quantized, kMaxFeatures);
  return s;
}

ProbeResult probe(const ProbeSetup& s, const ProbeOptions& opt, int threads,
                  const ProgressCallback& progress) {
  const Eigen::MatrixXd f = features(s.model, s.images, threads, progress);
  EDGEQ_CHECK(
      f.cols() <= kMaxFeatures, "probe: '", s.model, "' gives ", f.cols(),
      " features per image; probe pooled taps (an arm cut with taps, e.g. arm A)");  // dynamic
                                                                                     // shapes
  Eigen::MatrixXd q;
  if (!s.quantized.empty()) q = features(s.quantized, s.images, threads, progress);
  return run_probe(f, s.quantized.empty() ? nullptr : &q, s.labels, opt);
}

std::string probe_json(const ProbeResult& r) {
  return json_text(probe_result_json(r), 2);
}

}  // namespace edgeq
