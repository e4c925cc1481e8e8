// compare end to end: the real model against itself (everything exact), against a copy with
// perturbed weights (errors show), and bad input through the CLI.
#include "eval/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <random>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

CompareRunOptions real_options(const std::string& test_model) {
  CompareRunOptions o;
  o.ref_model = test::real_model_path();
  o.test_model = test_model;
  o.images = test::coco8_pose_dir() + "/images";
  return o;
}

TEST(CompareReal, ModelAgainstItselfIsExact) {
  EDGEQ_REQUIRE_REAL_DATA();
  ASSERT_FALSE(test::coco8_pose_dir().empty());
  CompareResult r = run_compare(real_options(test::real_model_path()), nullptr);
  EXPECT_EQ(r.images, 8);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].error.rel_l2, 0.0);
  EXPECT_EQ(r.outputs[0].error.max_abs, 0.0);
  EXPECT_NEAR(r.outputs[0].error.cosine, 1.0, 1e-12);
  ASSERT_TRUE(r.has_detections);
  EXPECT_TRUE(r.pose);
  EXPECT_GT(r.detections.ref_count, 0);
  EXPECT_EQ(r.detections.match_rate, 1.0);
  EXPECT_EQ(r.detections.extra, 0);
  EXPECT_EQ(r.detections.missing, 0);
  EXPECT_EQ(r.detections.box_px.max, 0.0);
  EXPECT_EQ(r.detections.kpt_px.max, 0.0);
  EXPECT_GT(r.detections.kpt_px.count, 0);
  EXPECT_EQ(r.detections.score_abs.max, 0.0);
  // coco8-pose keeps labels/ beside images/: both models get the same, non-trivial mAP.
  ASSERT_TRUE(r.has_labels);
  EXPECT_EQ(r.ref_metrics.box.labels, 21);  // 21 labelled people (models/README.md)
  EXPECT_GT(r.ref_metrics.box.map50, 0.5);
  EXPECT_LE(r.ref_metrics.box.map50, 0.995);
  ASSERT_TRUE(r.ref_metrics.has_pose);
  EXPECT_GT(r.ref_metrics.pose.map50_95, 0.1);
  EXPECT_EQ(r.ref_metrics.box.map50_95, r.test_metrics.box.map50_95);
  EXPECT_EQ(r.ref_metrics.pose.map50_95, r.test_metrics.pose.map50_95);
}

TEST(CompareReal, PerturbedWeightsShowUpAtEveryLevel) {
  EDGEQ_REQUIRE_REAL_DATA();
  Graph g = load_onnx(test::real_model_path());
  // Multiply every conv weight of the head (layer 23) by 1 + 5% noise.
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.f, 0.05f);
  int touched = 0;
  for (auto& [name, t] : g.initializers) {
    if (name.rfind("model.23.", 0) != 0 || name.find(".weight") == std::string::npos) continue;
    if (t.dtype() != DType::kFloat32 || t.numel() < 16) continue;
    Tensor c = t.clone();
    for (int64_t i = 0; i < c.numel(); ++i) c.data<float>()[i] *= 1.f + noise(rng);
    t = c;
    ++touched;
  }
  ASSERT_GT(touched, 10);
  const std::string path = test::temp_dir("cmp_perturbed") + "/perturbed.onnx";
  save_onnx(g, path);
  CompareResult r = run_compare(real_options(path), nullptr);
  const TensorError& e = r.outputs[0].error;
  EXPECT_GT(e.rel_l2, 1e-4);
  EXPECT_LT(e.rel_l2, 0.5);
  EXPECT_LT(e.cosine, 1.0);
  EXPECT_GT(e.max_abs, 0.0);
  EXPECT_GT(r.detections.matched, 0);
  EXPECT_GT(r.detections.box_px.mean, 0.0);
  EXPECT_GT(r.detections.kpt_px.mean, 0.0);
  EXPECT_GT(r.detections.score_abs.mean, 0.0);
  EXPECT_GE(r.detections.box_px.p95, r.detections.box_px.mean * 0.5);
  EXPECT_EQ(r.detections.matched + r.detections.missing, r.detections.ref_count);
  EXPECT_EQ(r.detections.matched + r.detections.extra, r.detections.test_count);
}

TEST(CompareCli, SelfCompareWritesJson) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string dir = test::temp_dir("cmp_cli");
  const std::string m = test::real_model_path();
  auto r = test::run_cli("compare --ref '" + m + "' --test '" + m + "' --images '" +
                         test::coco8_pose_dir() + "/images/val' --n 2 --json '" + dir + "/r.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("match rate 100.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("2/2"), std::string::npos) << r.err;  // progress on stderr
  auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(j["images"], 2);
  EXPECT_EQ(j["tensors"][0]["name"], "output0");
  EXPECT_EQ(j["tensors"][0]["rel_l2"], 0.0);
  EXPECT_EQ(j["detections"]["match_rate"], 1.0);
  EXPECT_EQ(j["labels"]["ref"]["box"]["map50_95"], j["labels"]["test"]["box"]["map50_95"]);
  EXPECT_TRUE(j["labels"]["ref"].contains("pose"));
}

// --labels naming a folder that holds a label file for none of the images: scoring every image as
// empty reported mAP 0.0000 for both models with no word (issue 27). Now a warning, and no mAP.
TEST(CompareCli, LabelsMatchingNoImageWarnAndGiveNoMap) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string dir = test::temp_dir("cmp_unmatched");
  ensure_dir(dir + "/labels");
  write_file_atomic(dir + "/labels/someone_else.txt", "0 0.5 0.5 0.2 0.2\n");
  const std::string m = test::real_model_path();
  auto r = test::run_cli("compare --ref '" + m + "' --test '" + m + "' --images '" +
                         test::coco8_pose_dir() + "/images/val' --n 1 --labels '" + dir +
                         "/labels' --json '" + dir + "/r.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: no label file in " + dir + "/labels matches any of the"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("labels: warning: no label file"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("mAP50"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  EXPECT_TRUE(j["labels"].is_null());
  EXPECT_NE(j["labels_warning"].get<std::string>().find("no mAP"), std::string::npos);
}

// Another engine as the test: compare writes the preprocessed inputs, ONNX Runtime runs the model
// on them, and compare judges ORT's outputs read back from files (DIR/<k>/output0.npy).
TEST(CompareCli, JudgesAnotherEnginesOutputs) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const std::string dir = test::temp_dir("cmp_engine");
  const std::string m = test::real_model_path();
  const std::string base = "compare --ref '" + m + "' --test '" + m + "' --images '" +
                           test::coco8_pose_dir() + "/images/val' --n 2 --quiet";
  auto r = test::run_cli(base + " --save-inputs '" + dir + "/in'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto outs = test::run_ort_many(
      m, {{{"images", load_npy(dir + "/in/0.npy")}}, {{"images", load_npy(dir + "/in/1.npy")}}});
  for (size_t k = 0; k < outs.size(); ++k) {
    ensure_dir(dir + "/ort/" + std::to_string(k));
    save_npy(outs[k].at("output0"), dir + "/ort/" + std::to_string(k) + "/output0.npy");
  }
  r = test::run_cli(base + " --test-outputs '" + dir + "/ort' --json '" + dir + "/r.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(j["detections"]["match_rate"], 1.0);
  EXPECT_GT(j["tensors"][0]["rel_l2"], 0.0);  // ORT's float arithmetic, not ours
  EXPECT_LT(j["tensors"][0]["rel_l2"], 1e-4);
  r = test::run_cli(base + " --test-outputs '" + dir + "/missing'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("output0.npy"), std::string::npos) << r.err;
}

// A synthetic model pair and one image, for bad-input cases that need no shared data.
class CompareCliBadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(test::temp_dir("cmp_bad"));
    auto a = test::run_cli("zoo yolo11n-pose -o '" + *dir_ + "/pose.onnx'");
    auto b = test::run_cli("zoo yolo11n -o '" + *dir_ + "/det.onnx'");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    ensure_dir(*dir_ + "/ds/images");
    ensure_dir(*dir_ + "/ds/labels");
    ensure_dir(*dir_ + "/empty");
    cv::Mat img(120, 160, CV_8UC3, cv::Scalar(30, 90, 150));
    cv::imwrite(*dir_ + "/ds/images/a.jpg", img);
    write_file_atomic(*dir_ + "/ds/labels/a.txt", "0 0.5 0.5 0.2 0.2\n0 0.5 abc 0.2 0.2\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string* dir_;
};
std::string* CompareCliBadInput::dir_ = nullptr;

TEST_F(CompareCliBadInput, TestModelWithOtherOutputs) {
  const std::string& d = *dir_;
  auto r = test::run_cli("compare --ref '" + d + "/pose.onnx' --test '" + d +
                         "/det.onnx' --images '" + d + "/ds/images'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the test model's outputs differ from the reference model's: reference "
                       "has output0 [1,56,8400]; test has output0 [1,84,8400]"),
            std::string::npos)
      << r.err;
}

TEST_F(CompareCliBadInput, LabelsThatDoNotParseNameFileAndLine) {
  const std::string& d = *dir_;
  auto r = test::run_cli("compare --ref '" + d + "/det.onnx' --test '" + d +
                         "/det.onnx' --images '" + d + "/ds/images'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("labels/a.txt:2: 'abc' is not a number"), std::string::npos) << r.err;
}

TEST_F(CompareCliBadInput, EmptyImageFolder) {
  const std::string& d = *dir_;
  auto r = test::run_cli("compare --ref '" + d + "/det.onnx' --test '" + d +
                         "/det.onnx' --images '" + d + "/empty'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("images: no images"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/empty"), std::string::npos) << r.err;
}

TEST_F(CompareCliBadInput, MissingLabelsFolder) {
  const std::string& d = *dir_;
  auto r = test::run_cli("compare --ref '" + d + "/det.onnx' --test '" + d +
                         "/det.onnx' --images '" + d + "/ds/images' --labels '" + d + "/nolabels'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("labels folder not found"), std::string::npos) << r.err;
}

// Issue 46: with neither model detecting anything, compare reported a match rate of 100 %. There
// is nothing to match: the match rate is none (JSON null) with a notice, in the table and the JSON.
TEST_F(CompareCliBadInput, NoDetectionsOnEitherSideHaveNoMatchRate) {
  const std::string& d = *dir_;
  const std::string out = test::temp_dir("cmp_none");
  cv::imwrite(out + "/gray.jpg", cv::Mat(120, 160, CV_8UC3, cv::Scalar(114, 114, 114)));
  auto r =
      test::run_cli("compare --ref '" + d + "/det.onnx' --test '" + d + "/det.onnx' --images '" +
                    out + "/gray.jpg' --conf 0.999 --json '" + out + "/r.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reference 0, test 0, matched 0 (match rate none)"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("100.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notice: neither model detected anything"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("notice: neither model detected anything"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(read_file(out + "/r.json"));
  EXPECT_TRUE(j["detections"]["match_rate"].is_null()) << j["detections"];
  EXPECT_NE(j["detections"]["notice"].get<std::string>().find("no match rate"), std::string::npos);
}

// Issue 46: class 5 on a 1-class pose model scored mAP 0 without a word. Labels are checked
// against the model before any image runs: one line naming the file and the line.
TEST_F(CompareCliBadInput, LabelsAreCheckedAgainstTheModel) {
  const std::string d = test::temp_dir("cmp_label_values");
  ensure_dir(d + "/ds/images");
  ensure_dir(d + "/ds/labels");
  cv::imwrite(d + "/ds/images/a.jpg", cv::Mat(120, 160, CV_8UC3, cv::Scalar(30, 90, 150)));
  const std::string base = "compare --ref '" + *dir_ + "/pose.onnx' --test '" + *dir_ +
                           "/pose.onnx' --images '" + d + "/ds/images' --json '" + d + "/r.json'";
  const std::pair<std::string, std::string> cases[] = {
      {"0 0.5 0.5 0.2 0.2\n5 0.5 0.5 0.2 0.2\n",
       "labels/a.txt:2: class 5 is not a class of the model, which has 1 class (0)"},
      {"0 0.5 0.5 0.2 0.2 0.1 0.1 2 0.2 0.2 2\n",
       "labels/a.txt:1: 6 keypoint values, but the model's objects have 17 keypoints"},
      {"0 0.5 -0.5 0.2 0.2\n", "labels/a.txt:1: box centre (0.5, -0.5) is outside the image"},
  };
  for (const auto& [text, needle] : cases) {
    write_file_atomic(d + "/ds/labels/a.txt", text);
    test::expect_refusal(test::run_cli(base), needle, d + "/r.json");
  }
  write_file_atomic(d + "/ds/labels/a.txt",
                    "\xEF\xBB\xBF"
                    "0 0.5 0.5 0.2 0.2\n");  // a BOM
  auto r = test::run_cli(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(d + "/r.json"))["labels"]["ref"]["box"]["labels"], 1);
}

}  // namespace
}  // namespace edgeq
