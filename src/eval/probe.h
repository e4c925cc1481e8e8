// Task probes: how much of a task a model's features still carry after quantization. A linear
// probe (eval/linear_models.h: logistic regression for classes, ridge for values) on
// standardized features, k-fold cross-validated, read three ways as the field does:
//   fp32       trained and tested on FP32 features;
//   frozen     the same FP32-trained probe (and standardization) tested on quantized features;
//   retrained  trained and tested on quantized features.
// Score: accuracy (classes) or R^2 (values), pooled over every held-out prediction.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace edgeq {

enum class ProbeTask { kClassify, kRegress };

// A CSV of image -> label ("image,label" per line; a first line "image,label" is a header,
// '#' starts a comment). task "auto": values when some label is a non-integer number, else
// classes (names or integers, in sorted order). Throws naming the file and line on bad input.
struct ProbeLabels {
  ProbeTask task = ProbeTask::kClassify;
  std::vector<std::string> images;       // as written
  std::vector<int> classes;              // per row (classify)
  std::vector<std::string> class_names;  // index -> name
  std::vector<double> values;            // per row (regress)
};
ProbeLabels read_probe_labels(const std::string& csv_path, const std::string& task = "auto");
ProbeLabels parse_probe_labels(const std::string& text, const std::string& what,
                               const std::string& task = "auto");

// For each label row, the path among `images` it names: equal, ending in "/NAME", or the same
// file name. Throws naming a row that matches no image.
std::vector<std::string> probe_image_paths(const ProbeLabels& labels,
                                           const std::vector<std::string>& images);

// Fold of each row: rows ordered by label (class, or value) then position, dealt round robin.
std::vector<int> probe_folds(const ProbeLabels& labels, int folds);

struct ProbeOptions {
  int folds = 4;
  double l2 = 0.1;
};

struct ProbeReading {
  double score = 0;  // accuracy or R^2
  double mae = 0;    // values: mean absolute error
};

struct ProbeResult {
  ProbeTask task = ProbeTask::kClassify;
  size_t samples = 0, features = 0;
  int folds = 0, classes = 0;
  double chance = 0;  // classes: the majority class's share
  ProbeReading fp32;
  bool has_quantized = false;
  ProbeReading frozen, retrained;
};

// Rows of `fp32` (and `quantized`, when not null) are the label rows in order.
ProbeResult run_probe(const Eigen::MatrixXd& fp32, const Eigen::MatrixXd* quantized,
                      const ProbeLabels& labels, const ProbeOptions& opt);

nlohmann::json probe_result_json(const ProbeResult& r);

}  // namespace edgeq
