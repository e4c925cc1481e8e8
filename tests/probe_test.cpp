// Task probes: the solvers against hand-derived optima, labels CSV, folds, the three readings, and
// `edgeq probe` on a synthetic arm A whose images carry a label the pooled features must find.
#include "eval/probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>

#include "cli_util.h"
#include "core/error.h"
#include "core/file_io.h"
#include "eval/linear_models.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

double sigmoid(double z) {
  return 1 / (1 + std::exp(-z));
}

// Root of f on [lo, hi] by bisection (f(lo) < 0 < f(hi)).
template <typename F>
double bisect(F f, double lo, double hi) {
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// x = [1,2,3], y = [2,4,6]: centred x = [-1,0,1], y = [-2,0,2]; w = sum(xy) / (sum(x^2) + l2)
// = 4 / (2 + 2) = 1, b = mean(y) - w mean(x) = 4 - 2 = 2.
TEST(LinearModels, RidgeMatchesTheClosedForm) {
  Eigen::MatrixXd x(3, 1);
  x << 1, 2, 3;
  Eigen::VectorXd y(3);
  y << 2, 4, 6;
  const RidgeModel m = fit_ridge(x, y, 2.0);
  EXPECT_NEAR(m.w[0], 1.0, 1e-12);
  EXPECT_NEAR(m.b, 2.0, 1e-12);
  EXPECT_NEAR(m.predict(x)[2], 5.0, 1e-12);
  // More columns than rows (the dual form). Centred, X = u v' with u = (-1, 0, 1) and
  // v = (1, 2, 0, 0), y = 2u; the solution lies along v, w = t v, minimizing
  // |u|^2 (2 - |v|^2 t)^2 + l2 |v|^2 t^2 = 2 (2 - 5t)^2 + 10 t^2: t = 1/3.
  Eigen::MatrixXd x2(3, 4);
  x2 << 1, 2, 0, 0, 2, 4, 0, 0, 3, 6, 0, 0;
  const RidgeModel m2 = fit_ridge(x2, y, 2.0);
  EXPECT_NEAR(m2.w[0], 1.0 / 3, 1e-10);
  EXPECT_NEAR(m2.w[1], 2.0 / 3, 1e-10);
  EXPECT_NEAR(m2.w[2], 0, 1e-12);
}

// Two points x = -1 (class 0) and x = +1 (class 1). By symmetry b = 0 and w_1 = -w_0 = a, so
// p1(x) = sigmoid(2 a x); the objective mean CE + l2/2 (w_0^2 + w_1^2) has derivative
// -2 sigmoid(-2a) + 2 l2 a, zero where a = sigmoid(-2a) / l2.
TEST(LinearModels, LogisticMatchesTheHandDerivedOptimum) {
  Eigen::MatrixXd x(2, 1);
  x << -1, 1;
  for (double l2 : {0.5, 0.1}) {
    const LogisticModel m = fit_logistic(x, {0, 1}, 2, l2);
    const double a = bisect([&](double a) { return a - sigmoid(-2 * a) / l2; }, 0, 100);
    EXPECT_TRUE(m.converged) << l2;
    EXPECT_NEAR(m.w(0, 1), a, 1e-5) << l2;
    EXPECT_NEAR(m.w(0, 0), -a, 1e-5) << l2;
    EXPECT_NEAR(m.b[0] - m.b[1], 0, 1e-5);
    EXPECT_NEAR(m.probabilities(x)(1, 1), sigmoid(2 * a), 1e-5);
  }
  // Three separable classes on a line are each predicted right.
  Eigen::MatrixXd x3(6, 1);
  x3 << -2, -1.8, 0, 0.1, 2, 2.2;
  const LogisticModel m3 = fit_logistic(x3, {0, 0, 1, 1, 2, 2}, 3, 0.01);
  EXPECT_EQ(m3.predict(x3), (std::vector<int>{0, 0, 1, 1, 2, 2}));
}

TEST(LinearModels, StandardizerUsesTrainingMoments) {
  Eigen::MatrixXd x(2, 2);
  x << 1, 5, 3, 5;
  const Standardizer s = Standardizer::fit(x);
  EXPECT_DOUBLE_EQ(s.mean[0], 2);
  EXPECT_DOUBLE_EQ(s.scale[0], 1);  // population deviation of {1, 3}
  EXPECT_DOUBLE_EQ(s.scale[1], 1);  // constant column: centred only
  const Eigen::MatrixXd z = s.apply(x);
  EXPECT_DOUBLE_EQ(z(0, 0), -1);
  EXPECT_DOUBLE_EQ(z(1, 1), 0);
}

TEST(Probe, LabelsCsvClassesValuesAndErrors) {
  const ProbeLabels c =
      parse_probe_labels("image,label\na.jpg, 2\nb.jpg,10\n# note\nc.jpg,2\n", "t");
  EXPECT_EQ(c.task, ProbeTask::kClassify);
  EXPECT_EQ(c.class_names, (std::vector<std::string>{"2", "10"}));  // numeric order
  EXPECT_EQ(c.classes, (std::vector<int>{0, 1, 0}));
  const ProbeLabels v = parse_probe_labels("a.jpg,0.5\nb.jpg,2\n", "t");
  EXPECT_EQ(v.task, ProbeTask::kRegress);
  EXPECT_EQ(v.values, (std::vector<double>{0.5, 2}));
  EXPECT_EQ(parse_probe_labels("a.jpg,cat\nb.jpg,dog\n", "t").class_names[1], "dog");
  EXPECT_EQ(parse_probe_labels("a,1\nb,2\n", "t", "regress").task, ProbeTask::kRegress);
  EXPECT_THROW(parse_probe_labels("a.jpg\n", "t"), Error);
  EXPECT_THROW(parse_probe_labels("a.jpg,x\nb.jpg,x\n", "t"), Error);  // one class
  EXPECT_THROW(parse_probe_labels("a.jpg,x\nb.jpg,y\n", "t", "regress"), Error);
  EXPECT_EQ(probe_image_paths(c, {"/d/c.jpg", "/d/b.jpg", "/d/a.jpg"}),
            (std::vector<std::string>{"/d/a.jpg", "/d/b.jpg", "/d/c.jpg"}));
  EXPECT_THROW(probe_image_paths(c, {"/d/a.jpg"}), Error);
  // Strict CSVs: a BOM and CRLF are read through; "1" and "1.0" are one class; a repeated image
  // (it would sit in training and test folds at once) and a third column are refused by line.
  const ProbeLabels bom = parse_probe_labels(
      "\xEF\xBB\xBFimage,label\r\na.jpg,1\r\nb.jpg,1.0\r\n"
      "c.jpg,2\r\n",
      "t");
  EXPECT_EQ(bom.images, (std::vector<std::string>{"a.jpg", "b.jpg", "c.jpg"}));
  EXPECT_EQ(bom.class_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(bom.classes, (std::vector<int>{0, 0, 1}));
  EXPECT_NE(test::error_of([] {
              parse_probe_labels("a.jpg,x\nb.jpg,y\na.jpg,x\n", "t");
            }).find("t:3: image 'a.jpg' is labelled again (first on line 1)"),
            std::string::npos);
  EXPECT_NE(test::error_of([] {
              parse_probe_labels("a.jpg,x,extra\nb.jpg,y\n", "t");
            }).find("t:1: expected 2 columns"),
            std::string::npos);
}

TEST(Probe, FoldsAreStratified) {
  ProbeLabels l;
  l.task = ProbeTask::kClassify;
  l.images.assign(8, "x");
  l.classes = {0, 1, 0, 1, 0, 1, 0, 1};
  l.class_names = {"a", "b"};
  const std::vector<int> f = probe_folds(l, 4);
  for (int fold = 0; fold < 4; ++fold) {
    int n0 = 0, n1 = 0;
    for (size_t i = 0; i < 8; ++i)
      if (f[i] == fold) (l.classes[i] ? n1 : n0)++;
    EXPECT_EQ(n0, 1);
    EXPECT_EQ(n1, 1);
  }
}

// Features that separate the classes: FP32 is perfect; identical "quantized" features read the
// same three ways; features with the signal removed read at chance when frozen and retrained.
TEST(Probe, ThreeReadings) {
  ProbeLabels l;
  l.task = ProbeTask::kClassify;
  l.class_names = {"a", "b"};
  Eigen::MatrixXd f(20, 3), q_noise(20, 3);
  std::mt19937 rng(1);
  std::normal_distribution<double> n(0, 1);
  for (int i = 0; i < 20; ++i) {
    l.images.push_back("im" + std::to_string(i));
    l.classes.push_back(i % 2);
    f(i, 0) = (i % 2 ? 3 : -3) + 0.1 * n(rng);
    f(i, 1) = n(rng);
    f(i, 2) = n(rng);
    q_noise(i, 0) = n(rng);  // the signal is gone
    q_noise(i, 1) = n(rng);
    q_noise(i, 2) = n(rng);
  }
  ProbeOptions opt;
  opt.folds = 5;
  const ProbeResult same = run_probe(f, &f, l, opt);
  EXPECT_DOUBLE_EQ(same.fp32.score, 1.0);
  EXPECT_DOUBLE_EQ(same.frozen.score, 1.0);
  EXPECT_DOUBLE_EQ(same.retrained.score, 1.0);
  EXPECT_DOUBLE_EQ(same.chance, 0.5);
  const ProbeResult lost = run_probe(f, &q_noise, l, opt);
  EXPECT_DOUBLE_EQ(lost.fp32.score, 1.0);
  EXPECT_LT(lost.frozen.score, 0.8);
  EXPECT_LT(lost.retrained.score, 0.8);
  // Values: y = 2 f0 is found (R^2 near 1).
  ProbeLabels v;
  v.task = ProbeTask::kRegress;
  for (int i = 0; i < 20; ++i) {
    v.images.push_back("im" + std::to_string(i));
    v.values.push_back(2 * f(i, 0));
  }
  const ProbeResult r = run_probe(f, nullptr, v, opt);
  EXPECT_GT(r.fp32.score, 0.95);
  EXPECT_FALSE(r.has_quantized);
}

// A synthetic arm A on scenes made darker or brighter: the pooled taps carry brightness, so the
// probe finds it well above chance, and W8A16 keeps it.
TEST(ProbeCli, FindsBrightnessInPooledTaps) {
  const std::string dir = test::temp_dir("probe-cli");
  std::filesystem::create_directories(dir + "/img");
  std::string csv = "image,label\n";
  for (int i = 0; i < 16; ++i) {
    cv::Mat im = synthetic_scene(i, 7, 320, 240);
    const bool bright = i % 2 == 1;
    im.convertTo(im, -1, bright ? 1.0 : 0.35, bright ? 60 : 0);
    const std::string name = "s" + std::to_string(i) + ".jpg";
    cv::imwrite(dir + "/img/" + name, im);
    csv += name + (bright ? ",bright\n" : ",dark\n");
  }
  write_file_atomic(dir + "/labels.csv", csv);
  cv::imwrite(dir + "/img/unlabelled.jpg", synthetic_scene(99, 7, 320, 240));  // no row: a note
  Graph model = build_yolo11("yolo11n");
  CutSpec spec;
  spec.arm = Arm::kA;
  save_onnx(cut_model(model, spec), dir + "/armA.onnx");
  save_onnx(model, dir + "/full.onnx");
  auto r =
      test::run_cli("probe --model '" + dir + "/armA.onnx' --images '" + dir + "/img' --labels '" +
                    dir + "/labels.csv' --folds 4 --json '" + dir + "/p.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: 1 of the 17 images have no row in"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/p.json"));
  EXPECT_EQ(j["task"], "classify");
  EXPECT_EQ(j["samples"], 16);
  EXPECT_EQ(j["chance"], 0.5);
  EXPECT_GE(j["fp32"]["score"].get<double>(), 0.85) << r.out;
  EXPECT_NE(r.out.find("fp32"), std::string::npos);
  // A full model is refused: its outputs are not pooled features.
  r = test::run_cli("probe --model '" + dir + "/full.onnx' --images '" + dir + "/img' --labels '" +
                    dir + "/labels.csv'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("pooled taps of arm A"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("features of"), std::string::npos) << "refused after the features";
}

// What fails only after every image's features were extracted fails before the first one (issue
// 46): a missing or foreign quantized model, more folds than labelled images.
TEST(ProbeCli, RefusesBeforeExtractingFeatures) {
  const std::string dir = test::temp_dir("probe-cli-early");
  std::filesystem::create_directories(dir + "/img");
  std::string csv = "image,label\n";
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i) + ".jpg";
    cv::imwrite(dir + "/img/" + name, synthetic_scene(i, 7, 160, 120));
    csv += name + (i % 2 ? ",a\n" : ",b\n");
  }
  write_file_atomic(dir + "/labels.csv", csv);
  CutSpec spec;
  spec.arm = Arm::kA;
  save_onnx(cut_model(build_yolo11("yolo11n", 160), spec), dir + "/armA.onnx");
  spec.arm = Arm::kB;
  save_onnx(cut_model(build_yolo11("yolo11n", 160), spec), dir + "/armB.onnx");
  const std::string base = "probe --model '" + dir + "/armA.onnx' --images '" + dir +
                           "/img' --labels '" + dir + "/labels.csv' --json '" + dir + "/p.json'";
  const auto refused_early = [&](const std::string& extra, const std::string& needle) {
    const auto r = test::run_cli(base + " " + extra);
    EXPECT_NE(r.exit_code, 0) << extra;
    EXPECT_NE(r.err.find(needle), std::string::npos) << extra << "\n" << r.err;
    EXPECT_EQ(r.err.find("features of"), std::string::npos) << extra << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/p.json"));
  };
  refused_early("--folds 2 --quantized '" + dir + "/missing.onnx'", "missing.onnx");
  refused_early("--folds 2 --quantized '" + dir + "/armB.onnx'", "features per image");
  refused_early("--folds 1000", "4 labelled images for 1000 folds");
  refused_early("--folds 5", "4 labelled images for 5 folds");
}

}  // namespace
}  // namespace edgeq
