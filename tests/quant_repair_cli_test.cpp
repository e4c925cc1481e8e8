// edgeq quantize with weight repair (--gptq, --bias-correction, --cle) through the program, on the
// zoo yolo11n-pose (untrained weights, so rounding errors are real) and synthetic scenes: the same
// bytes for any --threads, the repaired QDQ model in ONNX Runtime against edgeq, and one-line
// refusals with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "cli_util.h"
#include "core/file_io.h"
#include "encode/qdq_import.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

struct Fixture {
  std::string dir, model, images, stats, skip;
};

// The zoo model, 3 scenes and their statistics (JSON, so a test can edit them), made once.
const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.dir = test::temp_dir("repair_cli");
    f.model = f.dir + "/zoo.onnx";
    f.images = f.dir + "/scenes";
    f.stats = f.dir + "/zoo.stats.json";
    for (const std::string& cmd :
         {"zoo yolo11n-pose -o " + test::shell_quote(f.model),
          "scenes --out " + test::shell_quote(f.images) + " --n 3",
          "calibrate --model " + test::shell_quote(f.model) + " --images " +
              test::shell_quote(f.images) + " --out " + test::shell_quote(f.stats)}) {
      auto r = test::run_cli(cmd);
      if (r.exit_code != 0) {
        f.skip = "'" + cmd + "' failed: " + r.err;
        break;
      }
    }
    return f;
  }();
  return f;
}

#define REQUIRE_FIXTURE()        \
  const Fixture& fx = fixture(); \
  if (!fx.skip.empty()) GTEST_SKIP() << "skipped: " << fx.skip

std::string quantize_args(const Fixture& fx, const std::string& scheme, const std::string& out) {
  return "quantize --model " + test::shell_quote(fx.model) + " --stats " +
         test::shell_quote(fx.stats) + " --scheme " + scheme + " --out " + test::shell_quote(out);
}

// The repaired W8A16 model, written with --threads 1 (once).
const std::string& repaired_model() {
  static const std::string path = [] {
    const Fixture& fx = fixture();
    const std::string p = fx.dir + "/gptq_bc_t1.onnx";
    auto r = test::run_cli(quantize_args(fx, "w8a16", p) + " --gptq --bias-correction --cle " +
                           "--images " + test::shell_quote(fx.images) + " --n 2 --threads 1");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::printf("%s", r.out.c_str());
    EXPECT_NE(r.out.find("weight repair on 2 images"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GPTQ"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("bias correction"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("7 depthwise convs, 0 equalizable"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("weight repair"), std::string::npos) << "no progress: " << r.err;
    return p;
  }();
  return path;
}

TEST(QuantRepairCli, SameBytesForAnyThreadCount) {
  REQUIRE_FIXTURE();
  const std::string one = repaired_model(), three = fx.dir + "/gptq_bc_t3.onnx";
  auto r = test::run_cli(quantize_args(fx, "w8a16", three) + " --gptq --bias-correction --cle " +
                         "--images " + test::shell_quote(fx.images) + " --n 2 --threads 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_file(one) == read_file(three)) << "--threads 1 and 3 wrote different models";
  // And the repair did something: the model differs from the unrepaired one.
  const std::string plain = fx.dir + "/plain.onnx";
  ASSERT_EQ(test::run_cli(quantize_args(fx, "w8a16", plain)).exit_code, 0);
  EXPECT_FALSE(read_file(one) == read_file(plain));
}

// |edgeq - ORT| on output0 in steps of its (coarsest) encoding, sorted.
std::vector<double> steps_from_ort(const std::string& model, const std::string& image) {
  const Graph g = load_onnx(model);
  const double step = test::output_step(g, "output0");
  const std::map<std::string, Tensor> feed = {
      {"images", preprocess_image(read_image(image), 640, 640, nullptr)}};
  const Tensor ours = Executor(g).run(feed).at("output0");
  const Tensor ort = test::run_ort(model, feed).at("output0");
  EXPECT_EQ(ours.shape(), ort.shape());
  std::vector<double> steps(static_cast<size_t>(ours.numel()));
  for (int64_t i = 0; i < ours.numel(); ++i)
    steps[i] = std::fabs(ours.data<float>()[i] - ort.data<float>()[i]) / step;
  std::sort(steps.begin(), steps.end());
  std::printf("%s, edgeq vs ORT on output0: median %.3g, p99 %.3g, max %.3g steps of %.4g\n",
              fs::path(model).filename().c_str(), steps[steps.size() / 2],
              steps[steps.size() * 99 / 100], steps.back(), step);
  return steps;
}

TEST(QuantRepairCli, RepairedModelRunsInOrtLikeEdgeq) {
  REQUIRE_FIXTURE();
  EDGEQ_REQUIRE_ORT();
  const std::string plain = fx.dir + "/ort_plain.onnx";
  ASSERT_EQ(test::run_cli(quantize_args(fx, "w8a16", plain)).exit_code, 0);
  const std::string image = list_images(fx.images).at(0);
  const std::vector<double> r = steps_from_ort(repaired_model(), image);
  const std::vector<double> p = steps_from_ort(plain, image);
  // Two correct engines flip 16-bit codes by one step and the flips cascade (docs/lessons.md,
  // lesson 7): judged by percentiles, against the same comparison of the unrepaired model.
  const size_t p99 = r.size() * 99 / 100;
  // Most values agree to a small part of the coarsest step (output0 is assembled in float from
  // values of several encodings, each as fine as or finer than that step).
  EXPECT_LE(r[r.size() / 2], 0.05);
  EXPECT_LE(r[p99], std::max(2.0, p[p99]) + 1.0);
  EXPECT_LE(r.back(), std::max(2.0 * p.back(), 20.0));
}

TEST(QuantRepairCli, GptqIsTheW8A16DefaultWithImages) {
  REQUIRE_FIXTURE();
  const std::string images_only = " --images " + test::shell_quote(fx.images);
  const std::string images = images_only + " --n 2";
  const std::string asked = fx.dir + "/w8a16_gptq.onnx", dflt = fx.dir + "/w8a16_default.onnx";
  const std::string off = fx.dir + "/w8a16_off.onnx", plain = fx.dir + "/w8a16_plain.onnx";
  ASSERT_EQ(test::run_cli(quantize_args(fx, "w8a16", asked) + images + " --gptq").exit_code, 0);
  auto d = test::run_cli(quantize_args(fx, "w8a16", dflt) + images);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("GPTQ"), std::string::npos) << d.out;
  EXPECT_TRUE(read_file(asked) == read_file(dflt));
  // Without a repair step --n does nothing (refused: OptionsCli.OptionsThatDoNothingInContext...).
  auto n = test::run_cli(quantize_args(fx, "w8a16", off) + images_only + " --no-gptq");
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_NE(n.err.find("no weight repair to run"), std::string::npos) << n.err;
  ASSERT_EQ(test::run_cli(quantize_args(fx, "w8a16", plain)).exit_code, 0);
  EXPECT_TRUE(read_file(off) == read_file(plain));
  EXPECT_FALSE(read_file(dflt) == read_file(plain));
  // W8A8 runs none by default: the same model as without --images, and a note.
  const std::string w8a8 = fx.dir + "/w8a8_images.onnx", w8a8_plain = fx.dir + "/w8a8_plain.onnx";
  auto e = test::run_cli(quantize_args(fx, "w8a8", w8a8) + images_only);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.err.find("no weight repair to run"), std::string::npos) << e.err;
  ASSERT_EQ(test::run_cli(quantize_args(fx, "w8a8", w8a8_plain)).exit_code, 0);
  EXPECT_TRUE(read_file(w8a8) == read_file(w8a8_plain));
}

// images [1,3,32,32] -> Conv 3x3 (channel ranges 1 and 100) -> Relu -> depthwise Conv 3x3
// (ranges 10 and 0.1) -> y: one pair cross-layer equalization applies to.
Graph conv_relu_depthwise() {
  auto conv = [](const std::string& name, const std::string& x, const std::string& w,
                 const std::string& b, const std::string& y, int64_t group) {
    Node n{name, "Conv", "", {x, w, b}, {y}, {}};
    n.attrs["pads"].kind = Attribute::Kind::kInts;
    n.attrs["pads"].ints = {1, 1, 1, 1};
    n.attrs["group"].i = group;
    return n;
  };
  Graph g;
  g.inputs = {{"images", DType::kFloat32, {1, 3, 32, 32}}};
  g.outputs = {{"y", DType::kFloat32, {1, 2, 32, 32}}};
  std::vector<float> w1(2 * 3 * 9), w2(2 * 9);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = std::sin(1.7f * i) * (i < 27 ? 1.0f : 100.0f);
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = std::cos(0.9f * i) * (i < 9 ? 10.0f : 0.1f);
  g.initializers["w1"] = Tensor::from_vector<float>({2, 3, 3, 3}, w1);
  g.initializers["b1"] = Tensor::from_vector<float>({2}, {0.1f, 5.0f});
  g.initializers["w2"] = Tensor::from_vector<float>({2, 1, 3, 3}, w2);
  g.initializers["b2"] = Tensor::from_vector<float>({2}, {0.0f, 0.0f});
  g.nodes.push_back(conv("a", "images", "w1", "b1", "t", 1));
  g.nodes.push_back({"relu", "Relu", "", {"t"}, {"r"}, {}});
  g.nodes.push_back(conv("dw", "r", "w2", "b2", "y", 2));
  return g;
}

TEST(QuantRepairCli, CleEqualizesAPairAndRecalibratesTheValuesBetween) {
  REQUIRE_FIXTURE();
  const std::string model = fx.dir + "/pair.onnx", stats = fx.dir + "/pair.stats";
  save_onnx(conv_relu_depthwise(), model);
  ASSERT_EQ(test::run_cli("calibrate --model " + test::shell_quote(model) + " --images " +
                          test::shell_quote(fx.images) + " --out " + test::shell_quote(stats))
                .exit_code,
            0);
  const std::string base = "quantize --model " + test::shell_quote(model) + " --stats " +
                           test::shell_quote(stats) + " --scheme w8a16 --per-tensor-weights --out ";
  const std::string plain = fx.dir + "/pair_plain.onnx", cle = fx.dir + "/pair_cle.onnx";
  ASSERT_EQ(test::run_cli(base + test::shell_quote(plain)).exit_code, 0);
  auto r = test::run_cli(base + test::shell_quote(cle) + " --cle --no-gptq --images " +
                         test::shell_quote(fx.images));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 depthwise conv, 1 equalizable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equalized a -> dw"), std::string::npos) << r.out;
  // Per-tensor weight grids lose the small channels; equalized, they lose much less.
  const Graph fp32 = load_onnx(model);
  auto error = [&](const std::string& q_model) {
    double num = 0, den = 0;
    for (const std::string& image : list_images(fx.images)) {
      const std::map<std::string, Tensor> feed = {
          {"images", preprocess_image(read_image(image), 32, 32, nullptr)}};
      const Tensor ref = Executor(fp32).run(feed).at("y");
      const Tensor out = Executor(load_onnx(q_model)).run(feed).at("y");
      for (int64_t i = 0; i < ref.numel(); ++i) {
        const double d = out.data<float>()[i] - ref.data<float>()[i];
        num += d * d;
        den += double(ref.data<float>()[i]) * ref.data<float>()[i];
      }
    }
    return std::sqrt(num / den);
  };
  const double e_plain = error(plain), e_cle = error(cle);
  std::printf("per-tensor W8A16, relative L2 of y: %.4g without CLE, %.4g with\n", e_plain, e_cle);
  EXPECT_LT(e_cle, 0.5 * e_plain);
}

TEST(QuantRepairCli, RefusedWithOneLineAndNothingWritten) {
  REQUIRE_FIXTURE();
  const std::string out = fx.dir + "/refused.onnx";
  const std::string base = quantize_args(fx, "w8a8", out);
  // The library names its options (repair.gptq ...), not the flags.
  const std::pair<const char*, const char*> flags[] = {
      {"--gptq", "gptq"}, {"--bias-correction", "bias_correction"}, {"--cle", "cle"}};
  for (const auto& [flag, option] : flags)
    test::expect_refusal(test::run_cli(base + " " + flag), std::string(option) + " needs images",
                         out);
  const std::string empty = fx.dir + "/empty";
  fs::create_directories(empty);
  test::expect_refusal(test::run_cli(base + " --gptq --images " + test::shell_quote(empty)),
                       "holds no images", out);
  // Statistics recorded for images read at another size.
  std::string text = read_file(fx.stats);
  const std::string from = "letterbox 640x640", to = "letterbox 320x320";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), to);
  const std::string other = fx.dir + "/other_size.stats.json";
  write_file_atomic(other, text);
  test::expect_refusal(
      test::run_cli("quantize --model " + test::shell_quote(fx.model) + " --stats " +
                    test::shell_quote(other) + " --scheme w8a8 --out " + test::shell_quote(out) +
                    " --bias-correction " + "--images " + test::shell_quote(fx.images)),
      "weight repair reads its images as 'letterbox 640x640", out);
}

}  // namespace
}  // namespace edgeq
