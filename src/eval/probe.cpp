#include "eval/probe.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/option_range.h"
#include "core/text_format.h"
#include "eval/linear_models.h"

namespace edgeq {
namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

bool parse_number(const std::string& s, double* v) {
  if (s.empty()) return false;
  size_t used = 0;
  try {
    *v = std::stod(s, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == s.size() && std::isfinite(*v);
}

Eigen::MatrixXd rows_of(const Eigen::MatrixXd& x, const std::vector<int>& idx) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(idx.size()), x.cols());
  for (size_t i = 0; i < idx.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = x.row(idx[i]);
  return out;
}

// Held-out predictions for every row: trained on `train_x` rows, predicted on `test_x` rows.
struct Predictions {
  std::vector<int> cls;
  std::vector<double> value;
};

ProbeReading read_predictions(const ProbeLabels& l, const Predictions& p) {
  ProbeReading r;
  const size_t n = l.images.size();
  if (l.task == ProbeTask::kClassify) {
    size_t ok = 0;
    for (size_t i = 0; i < n; ++i) ok += p.cls[i] == l.classes[i];
    r.score = static_cast<double>(ok) / static_cast<double>(n);
    return r;
  }
  const double mean = std::accumulate(l.values.begin(), l.values.end(), 0.0) / n;
  double ss_res = 0, ss_tot = 0, abs = 0;
  for (size_t i = 0; i < n; ++i) {
    ss_res += (l.values[i] - p.value[i]) * (l.values[i] - p.value[i]);
    ss_tot += (l.values[i] - mean) * (l.values[i] - mean);
    abs += std::fabs(l.values[i] - p.value[i]);
  }
  r.score = ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
  r.mae = abs / n;
  return r;
}

}  // namespace

ProbeLabels parse_probe_labels(const std::string& text, const std::string& what,
                               const std::string& task) {
  EDGEQ_CHECK(task == "auto" || task == "classify" || task == "regress", "probe task '", task,
              "' is not auto, classify or regress");
  ProbeLabels l;
  std::vector<std::string> raw;
  // A UTF-8 byte order mark (spreadsheet exports) is not part of the first name.
  std::stringstream ss(text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text);
  std::map<std::string, int> first_line;  // each image labelled once
  int line_no = 0;
  for (std::string line; std::getline(ss, line);) {
    ++line_no;
    line = trim(line.substr(0, line.find('#')));  // trim drops a CRLF file's \r too
    if (line.empty()) continue;
    const size_t comma = line.find(',');
    EDGEQ_CHECK(comma != std::string::npos, what, ":", line_no, ": expected 'image,label', got '",
                line, "'");
    EDGEQ_CHECK(line.find(',', comma + 1) == std::string::npos, what, ":", line_no,
                ": expected 2 columns 'image,label', got ",
                std::count(line.begin(), line.end(), ',') + 1,
                " (names holding a comma are not supported)");
    const std::string image = trim(line.substr(0, comma)), label = trim(line.substr(comma + 1));
    if (l.images.empty() && raw.empty() && image == "image" && label == "label") continue;
    EDGEQ_CHECK(!image.empty() && !label.empty(), what, ":", line_no, ": empty image or label");
    const auto [it, fresh] = first_line.emplace(image, line_no);
    EDGEQ_CHECK(fresh, what, ":", line_no, ": image '", image,
                "' is labelled again (first on line ", it->second,
                "); a repeated image would sit in training and test folds at once");
    l.images.push_back(image);
    raw.push_back(label);
  }
  EDGEQ_CHECK(!l.images.empty(), what, ": no labelled image");
  bool all_numbers = true, all_integers = true;
  std::vector<double> values;
  for (const std::string& r : raw) {
    double v = 0;
    if (!parse_number(r, &v)) {
      all_numbers = all_integers = false;
      break;
    }
    values.push_back(v);
    all_integers = all_integers && v == std::floor(v);
  }
  const bool regress = task == "regress" || (task == "auto" && all_numbers && !all_integers);
  if (regress) {
    EDGEQ_CHECK(all_numbers, what, ": a regression probe needs numeric labels");
    l.task = ProbeTask::kRegress;
    l.values = values;
    return l;
  }
  l.task = ProbeTask::kClassify;
  if (all_numbers)  // integer classes by value ("1" and "1.0" are one class), in numeric order
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = format_number("%.17g", values[i]);
  std::vector<std::string> names = raw;
  if (all_numbers)
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return std::stod(a) < std::stod(b);
    });
  else
    std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  l.class_names = names;
  for (const std::string& r : raw)
    l.classes.push_back(static_cast<int>(std::find(names.begin(), names.end(), r) - names.begin()));
  EDGEQ_CHECK(names.size() >= 2, what, ": a class probe needs at least two classes, all ",
              l.images.size(), " labels are '", names[0], "'");
  return l;
}

ProbeLabels read_probe_labels(const std::string& csv_path, const std::string& task) {
  return parse_probe_labels(read_file(csv_path, kMaxTextBytes), csv_path, task);
}

std::vector<std::string> probe_image_paths(const ProbeLabels& labels,
                                           const std::vector<std::string>& images) {
  auto file_name = [](const std::string& p) {
    const size_t s = p.find_last_of('/');
    return s == std::string::npos ? p : p.substr(s + 1);
  };
  std::vector<std::string> out;
  for (const std::string& name : labels.images) {
    const std::string* hit = nullptr;
    for (const std::string& p : images)
      if (p == name || (p.size() > name.size() && p.compare(p.size() - name.size() - 1,
                                                            std::string::npos, "/" + name) == 0)) {
        hit = &p;
        break;
      }
    if (!hit)
      for (const std::string& p : images)
        if (file_name(p) == file_name(name)) {
          hit = &p;
          break;
        }
    EDGEQ_CHECK(hit, "probe labels: no image '", name, "' among the ", images.size(),
                " images given");
    out.push_back(*hit);
  }
  return out;
}

std::vector<int> probe_folds(const ProbeLabels& labels, int folds) {
  const size_t n = labels.images.size();
  check_option("folds", folds, ranges::kFolds);
  EDGEQ_CHECK(n >= static_cast<size_t>(folds), "probe: ", n, " labelled images for ", folds,
              " folds (at most one fold per labelled image: ", n, ")");
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return labels.task == ProbeTask::kClassify ? labels.classes[a] < labels.classes[b]
                                               : labels.values[a] < labels.values[b];
  });
  std::vector<int> fold(n);
  for (size_t i = 0; i < n; ++i) fold[order[i]] = static_cast<int>(i % folds);
  return fold;
}

ProbeResult run_probe(const Eigen::MatrixXd& fp32, const Eigen::MatrixXd* quantized,
                      const ProbeLabels& labels, const ProbeOptions& opt) {
  const size_t n = labels.images.size();
  EDGEQ_CHECK(static_cast<size_t>(fp32.rows()) == n, "probe: ", fp32.rows(), " feature rows for ",
              n, " labels");
  EDGEQ_CHECK(!quantized || (quantized->rows() == fp32.rows() && quantized->cols() == fp32.cols()),
              "probe: quantized features differ in shape from the FP32 ones");
  check_option("l2", opt.l2, ranges::kPenalty);
  ProbeResult r;
  r.task = labels.task;
  r.samples = n;
  r.features = static_cast<size_t>(fp32.cols());
  r.folds = opt.folds;
  r.classes = static_cast<int>(labels.class_names.size());
  r.has_quantized = quantized != nullptr;
  if (labels.task == ProbeTask::kClassify) {
    std::vector<size_t> count(r.classes, 0);
    for (int c : labels.classes) ++count[c];
    r.chance = static_cast<double>(*std::max_element(count.begin(), count.end())) / n;
  }
  const std::vector<int> fold = probe_folds(labels, opt.folds);
  Predictions p_fp32, p_frozen, p_retrained;
  for (Predictions* p : {&p_fp32, &p_frozen, &p_retrained}) {
    p->cls.assign(n, 0);
    p->value.assign(n, 0);
  }
  for (int f = 0; f < opt.folds; ++f) {
    std::vector<int> train, test;
    for (size_t i = 0; i < n; ++i) (fold[i] == f ? test : train).push_back(static_cast<int>(i));
    if (test.empty()) continue;
    // Trains on `x` rows `train`, predicts `eval` rows `test` into `out`.
    auto fit_predict = [&](const Eigen::MatrixXd& x,
                           const std::vector<const Eigen::MatrixXd*>& evals,
                           const std::vector<Predictions*>& outs) {
      const Eigen::MatrixXd xt = rows_of(x, train);
      const Standardizer st = Standardizer::fit(xt);
      if (labels.task == ProbeTask::kClassify) {
        std::vector<int> y;
        for (int i : train) y.push_back(labels.classes[i]);
        const LogisticModel m = fit_logistic(st.apply(xt), y, r.classes, opt.l2);
        for (size_t k = 0; k < evals.size(); ++k) {
          const std::vector<int> pred = m.predict(st.apply(rows_of(*evals[k], test)));
          for (size_t j = 0; j < test.size(); ++j) outs[k]->cls[test[j]] = pred[j];
        }
      } else {
        Eigen::VectorXd y(static_cast<Eigen::Index>(train.size()));
        for (size_t j = 0; j < train.size(); ++j) y[j] = labels.values[train[j]];
        const RidgeModel m = fit_ridge(st.apply(xt), y, opt.l2);
        for (size_t k = 0; k < evals.size(); ++k) {
          const Eigen::VectorXd pred = m.predict(st.apply(rows_of(*evals[k], test)));
          for (size_t j = 0; j < test.size(); ++j) outs[k]->value[test[j]] = pred[j];
        }
      }
    };
    if (quantized) {
      fit_predict(fp32, {&fp32, quantized}, {&p_fp32, &p_frozen});
      fit_predict(*quantized, {quantized}, {&p_retrained});
    } else {
      fit_predict(fp32, {&fp32}, {&p_fp32});
    }
  }
  r.fp32 = read_predictions(labels, p_fp32);
  if (quantized) {
    r.frozen = read_predictions(labels, p_frozen);
    r.retrained = read_predictions(labels, p_retrained);
  }
  return r;
}

nlohmann::json probe_result_json(const ProbeResult& r) {
  const bool cls = r.task == ProbeTask::kClassify;
  auto reading = [&](const ProbeReading& x) {
    nlohmann::json j = {{"score", x.score}};
    if (!cls) j["mae"] = x.mae;
    return j;
  };
  nlohmann::json j = {{"task", cls ? "classify" : "regress"},
                      {"score", cls ? "accuracy" : "r2"},
                      {"samples", r.samples},
                      {"features", r.features},
                      {"folds", r.folds},
                      {"fp32", reading(r.fp32)}};
  if (cls) {
    j["classes"] = r.classes;
    j["chance"] = r.chance;
  }
  if (r.has_quantized) {
    j["frozen"] = reading(r.frozen);
    j["retrained"] = reading(r.retrained);
  }
  return j;
}

}  // namespace edgeq
