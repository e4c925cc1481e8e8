#include "study/study_probe.h"

#include "eval/probe_features.h"

namespace edgeq {

nlohmann::json probe_step(const std::string& fp32_path, const std::string& q_path,
                          const std::vector<std::string>& images, const ProbeLabels& labels,
                          int folds, double l2, int threads) {
  const std::vector<std::string> paths = probe_image_paths(labels, images);
  const Eigen::MatrixXd f = model_features(fp32_path, paths, ExecMode::kSimulate, threads);
  const Eigen::MatrixXd q = model_features(q_path, paths, ExecMode::kSimulate, threads);
  ProbeOptions opt;
  opt.folds = folds;
  opt.l2 = l2;
  return probe_result_json(run_probe(f, &q, labels, opt));
}

}  // namespace edgeq
