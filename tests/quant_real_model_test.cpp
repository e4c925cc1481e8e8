// Quantization of the real YOLO11n-pose on coco8-pose: sharded calibration merges exactly, and
// our W8A16 / W8A8 QDQ models run the same in edgeq's executor (fake-quant) and ONNX Runtime.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "calib/calibrator.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "encode/qdq_export.h"
#include "encode/qdq_import.h"
#include "ir/onnx_io.h"
#include "quant/activation_encodings.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

const char* kPre = "letterbox 640x640 pad 114, RGB, /255, NCHW";

struct RealSetup {
  Graph graph;
  std::string sha;
  std::vector<Tensor> images;
  Stats stats;  // one pass over all images
};

const RealSetup& setup() {
  static const RealSetup s = [] {
    RealSetup s;
    std::string path = test::real_model_path();
    s.sha = sha256_hex(read_file(path));
    s.graph = load_onnx(path);
    for (const auto& p : list_images(test::coco8_pose_dir() + "/images"))
      s.images.push_back(preprocess_image(read_image(p), 640, 640, nullptr));
    Calibrator cal(s.graph, s.sha, kPre);
    for (const Tensor& x : s.images) cal.add({{"images", x}});
    s.stats = cal.take();
    return s;
  }();
  return s;
}

// Max |a - b| over box rows (0-3) and the score row (4) of [1, 56, N], over all anchors and over
// the anchors that `b` scores above 0.25 (the ones that can become detections).
struct PoseDiff {
  double box = 0, score = 0, box_conf = 0, score_conf = 0;
  size_t confident = 0;
};

PoseDiff pose_diff(const Tensor& a, const Tensor& b) {
  const int64_t n = a.dim(2);
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  PoseDiff d;
  for (int64_t i = 0; i < n; ++i) {
    bool conf = y[4 * n + i] > 0.25f;
    d.confident += conf;
    for (int64_t r = 0; r < 5; ++r) {
      double e = std::fabs(double(x[r * n + i]) - y[r * n + i]);
      double& all = r < 4 ? d.box : d.score;
      all = std::max(all, e);
      if (conf) {
        double& c = r < 4 ? d.box_conf : d.score_conf;
        c = std::max(c, e);
      }
    }
  }
  return d;
}

double relative_l2(const Tensor& test, const Tensor& ref) {
  auto x = test.to_floats(), y = ref.to_floats();
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    num += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    den += double(y[i]) * y[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST(QuantRealModel, ShardedCalibrationMergesExactly) {
  EDGEQ_REQUIRE_REAL_DATA();
  const RealSetup& s = setup();
  ASSERT_EQ(s.images.size(), 8u);
  Calibrator a(s.graph, s.sha, kPre), b(s.graph, s.sha, kPre);
  for (size_t i = 0; i < s.images.size(); ++i) (i % 3 == 0 ? a : b).add({{"images", s.images[i]}});
  Stats merged = merge_stats(a.take(), b.take());
  EXPECT_EQ(merged.images, 8);
  ASSERT_EQ(merged.values.size(), s.stats.values.size());
  size_t differing = 0;
  for (const auto& [name, h] : s.stats.values) differing += !(merged.at(name) == h);
  EXPECT_EQ(differing, 0u);
  std::printf("%zu values observed, all equal after merging 2 shards\n", s.stats.values.size());
  Stats other = merged;
  other.model_sha256 = sha256_hex("another model");
  EXPECT_THROW(merge_stats(merged, other), Error);
}

TEST(QuantRealModel, QdqModelsMatchOnnxRuntime) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const RealSetup& s = setup();
  std::string dir = test::temp_dir("quant_real");
  Executor fp(s.graph);
  std::vector<Tensor> ref;
  for (size_t k = 0; k < 3; ++k) ref.push_back(fp.run({{"images", s.images[k]}}).at("output0"));
  for (const char* scheme : {"w8a16", "w8a8"}) {
    QuantConfig c = config_for_scheme(parse<Scheme>(scheme));
    QuantPlan plan = plan_quantization(
        s.graph, c, [&](const std::string& v) { return s.stats.values.count(v) != 0; });
    QdqModel q = export_qdq(s.graph, plan, activation_encodings(s.graph, plan, s.stats, c), c);
    std::string path = dir + "/" + scheme + ".onnx";
    save_onnx(q.graph, path);
    // Encodings read back from the written file equal the ones written.
    EncodingSet back = encodings_from_qdq(load_onnx(path));
    size_t int_acts = 0;
    for (const auto& [name, te] : q.encodings.activations) {
      if (te.is_float) continue;
      ++int_acts;
      ASSERT_TRUE(back.activations.count(name)) << name;
      EXPECT_EQ(back.activations.at(name).channels[0].scale, te.channels[0].scale) << name;
    }
    EXPECT_EQ(back.params.size(), q.encodings.params.size());

    Executor ex(load_onnx(path));
    std::vector<std::map<std::string, Tensor>> feeds;
    for (size_t k = 0; k < ref.size(); ++k) feeds.push_back({{"images", s.images[k]}});
    auto ort = test::run_ort_many(path, feeds);
    PoseDiff worst;
    double rl2 = 0, rl2_ort = 0;
    for (size_t k = 0; k < ref.size(); ++k) {
      Tensor ours = ex.run(feeds[k]).at("output0");
      const Tensor& theirs = ort[k].at("output0");
      PoseDiff d = pose_diff(ours, theirs);
      worst.box = std::max(worst.box, d.box);
      worst.score = std::max(worst.score, d.score);
      worst.box_conf = std::max(worst.box_conf, d.box_conf);
      worst.score_conf = std::max(worst.score_conf, d.score_conf);
      worst.confident += d.confident;
      rl2 = std::max(rl2, relative_l2(ours, ref[k]));
      rl2_ort = std::max(rl2_ort, relative_l2(ours, theirs));
    }
    std::printf(
        "%s (minmax, ort placement): %zu activation encodings, %zu params\n"
        "  rel. L2 of output0: vs FP32 %.4g, vs ORT %.3g\n"
        "  max |edgeq - ORT| all 8400 anchors: box %.3g px, score %.3g; the %zu anchors scored "
        "> 0.25: box %.3g px, score %.3g\n",
        scheme, int_acts, q.encodings.params.size(), rl2, rl2_ort, worst.box, worst.score,
        worst.confident, worst.box_conf, worst.score_conf);
    // ORT runs the QDQ formula here (graph optimization "basic", test::OrtGraph::kFormula).
    // Float rounding differs between implementations (oneDNN vs MLAS sums); at each
    // QuantizeLinear a few values on a rounding boundary flip by one step, and the flips spread.
    // The two simulations must still agree far better than the quantized model agrees with FP32
    // (at 8 bit the flips are 256 times larger and spread further: on a Zen 3 the W8A8 ratio
    // reads 0.485 with oneDNN's direct convolutions and 0.50-0.52 with the Winograd ones, whose
    // float sums round differently again, against 0.028 and 0.030 at W8A16).
    const bool a16 = std::string(scheme) == "w8a16";
    EXPECT_LT(rl2_ort, (a16 ? 0.1 : 0.6) * rl2) << scheme;
    if (a16) {
      EXPECT_LE(worst.box_conf, 0.1) << scheme;
      EXPECT_LE(worst.score_conf, 1e-3) << scheme;
    }
  }
}

}  // namespace edgeq
