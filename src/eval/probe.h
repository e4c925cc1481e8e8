// Task probes (edgeq/probe.h): the labels, the folds and the cross-validated linear probe
// (eval/linear_models.h) on feature matrices.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "edgeq/probe.h"

namespace edgeq {

// A CSV of image -> label ("image,label" per line; a first line "image,label" is a header,
// '#' starts a comment). task "auto": values when some label is a non-integer number, else
// classes (names or integers, in sorted order). Throws naming the file and line on bad input.
ProbeLabels read_probe_labels(const std::string& csv_path, const std::string& task = "auto");
ProbeLabels parse_probe_labels(const std::string& text, const std::string& what,
                               const std::string& task = "auto");

// For each label row, the path among `images` it names: equal, ending in "/NAME", or the same
// file name. Throws naming a row that matches no image.
std::vector<std::string> probe_image_paths(const ProbeLabels& labels,
                                           const std::vector<std::string>& images);

// Fold of each row: rows ordered by label (class, or value) then position, dealt round robin.
std::vector<int> probe_folds(const ProbeLabels& labels, int folds);

// Rows of `fp32` (and `quantized`, when not null) are the label rows in order.
ProbeResult run_probe(const Eigen::MatrixXd& fp32, const Eigen::MatrixXd* quantized,
                      const ProbeLabels& labels, const ProbeOptions& opt);

nlohmann::json probe_result_json(const ProbeResult& r);

}  // namespace edgeq
