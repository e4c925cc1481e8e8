// edgeq calibrate / stats merge / quantize end to end through the program, on the real
// yolo11n-pose and coco8-pose; image sampling and progress output against hand-worked cases; bad
// input refused with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "calib/calibration_images.h"
#include "cli_util.h"
#include "core/file_io.h"
#include "core/progress.h"
#include "encode/qdq_import.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

using Fixture = test::CliModelFixture;
const Fixture& fixture() {
  return test::cli_model_fixture();
}

#define REQUIRE_FIXTURE()        \
  const Fixture& fx = fixture(); \
  std::printf("model: %s\n", fx.model.c_str())

// Stats of one pass over all images, made once.
const std::string& full_stats() {
  static const std::string path = [] {
    const Fixture& fx = fixture();
    std::string p = fx.dir + "/full.stats";
    auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                           test::shell_quote(fx.images) + " --n 8 --out " + test::shell_quote(p));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

int count_lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// edgeq's fake-quant run of a QDQ model against ONNX Runtime's, on output0's anchors that ORT
// scores > 0.25: boxes within 0.1 px, scores within one step of output0's encoding (at least
// 1e-3). output0 carries boxes, scores and keypoints in one 16-bit encoding (~700 px span, a step
// of ~0.011): one rounding flip between the two runtimes (docs/lessons.md, lesson 7) moves a score
// by a whole step, and whether a confident anchor's score flips on these images changes with any
// weight or placement.
void expect_agrees_with_ort(const std::string& qpath, const std::vector<std::string>& images,
                            const char* what) {
  const Graph g = load_onnx(qpath);
  const double step = test::output_step(g, "output0");
  const double score_tol = std::max(1e-3, 1.001 * step);
  Executor ex(g);
  double box = 0, score = 0;
  size_t confident = 0;
  for (size_t k = 0; k < std::min<size_t>(3, images.size()); ++k) {
    std::map<std::string, Tensor> feed = {
        {"images", preprocess_image(read_image(images[k]), 640, 640, nullptr)}};
    Tensor ours = ex.run(feed).at("output0");
    Tensor ort = test::run_ort(qpath, feed).at("output0");
    ASSERT_EQ(ours.shape(), ort.shape());
    const int64_t n = ours.dim(2);
    const float* x = ours.data<float>();
    const float* y = ort.data<float>();
    for (int64_t i = 0; i < n; ++i) {
      if (!(y[4 * n + i] > 0.25f)) continue;
      ++confident;
      for (int r4 = 0; r4 < 4; ++r4)
        box = std::max(box, double(std::fabs(x[r4 * n + i] - y[r4 * n + i])));
      score = std::max(score, double(std::fabs(x[4 * n + i] - y[4 * n + i])));
    }
  }
  std::printf(
      "edgeq vs ORT, %s: %zu anchors scored > 0.25, max box %.4g px, max score %.4g (output0 "
      "step %.4g)\n",
      what, confident, box, score, step);
  EXPECT_GT(confident, 0u) << what;
  EXPECT_LE(box, 0.1) << what;
  EXPECT_LE(score, score_tol) << what;
}

// ---- sampling, shards, progress ------------------------------------------------------------

TEST(QuantCliSampling, StratifiedRoundRobinOverSubFolders) {
  std::vector<CalibrationImage> ims = {
      {"a/1.jpg", "a"}, {"a/2.jpg", "a"}, {"a/3.jpg", "a"}, {"b/1.jpg", "b"}};
  auto s = sample_calibration_images(ims, 4, 7);
  ASSERT_EQ(s.size(), 4u);
  // Round 0 takes one from a, then b's only image; rounds 1, 2 take a's remaining two.
  EXPECT_EQ(s[0].group, "a");
  EXPECT_EQ(s[1].path, "b/1.jpg");
  EXPECT_EQ(s[2].group, "a");
  EXPECT_EQ(s[3].group, "a");
  std::set<std::string> paths;
  for (auto& i : s) paths.insert(i.path);
  EXPECT_EQ(paths.size(), 4u);  // each image once
  // n = 2 takes one per sub-folder.
  auto two = sample_calibration_images(ims, 2, 7);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_NE(two[0].group, two[1].group);
  // Clamped, not repeated.
  EXPECT_EQ(sample_calibration_images(ims, 100, 7).size(), 4u);
}

TEST(QuantCliSampling, SeededDeterministicAndShardsPartition) {
  std::vector<CalibrationImage> ims;
  for (int i = 0; i < 50; ++i) ims.push_back({"img" + std::to_string(i) + ".png", ""});
  auto a = sample_calibration_images(ims, 20, 3), b = sample_calibration_images(ims, 20, 3);
  auto c = sample_calibration_images(ims, 20, 4);
  ASSERT_EQ(a.size(), 20u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].path, b[i].path);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) differs |= a[i].path != c[i].path;
  EXPECT_TRUE(differs) << "seed 3 and 4 gave the same sample";
  // A shuffle, not the listing order.
  bool moved = false;
  for (size_t i = 0; i < a.size(); ++i) moved |= a[i].path != ims[i].path;
  EXPECT_TRUE(moved);
  auto s0 = shard_images(a, parse_shard("0/3")), s1 = shard_images(a, parse_shard("1/3")),
       s2 = shard_images(a, parse_shard("2/3"));
  EXPECT_EQ(s0.size(), 7u);
  EXPECT_EQ(s1.size(), 7u);
  EXPECT_EQ(s2.size(), 6u);
  EXPECT_EQ(s1[2].path, a[7].path);  // positions 1, 4, 7
  EXPECT_THROW(parse_shard("3/3"), Error);
  EXPECT_THROW(parse_shard("1"), Error);
  EXPECT_THROW(parse_shard("a/b"), Error);
}

TEST(QuantCliSampling, ProgressPrintsAboutEveryTenthWithoutTerminal) {
  std::ostringstream os;
  Progress p("calibrate", 20, os, false);
  for (int i = 0; i < 20; ++i) p.step();
  p.finish();
  // done = 1..20 -> deciles 0, 1, 1, 2, ..., 10: 11 distinct, one line each.
  EXPECT_EQ(count_lines(os.str()), 11);
  EXPECT_NE(os.str().find("20/20"), std::string::npos);
  EXPECT_NE(os.str().find("ETA"), std::string::npos);
  std::ostringstream tty;
  Progress t("calibrate", 3, tty, true);
  for (int i = 0; i < 3; ++i) t.step();
  t.finish();
  const std::string line = tty.str();
  EXPECT_EQ(count_lines(line), 1);  // one line rewritten with '\r'
  EXPECT_EQ(std::count(line.begin(), line.end(), '\r'), 3);
}

// ---- end to end ----------------------------------------------------------------------------

TEST(QuantCli, CalibrateQuantizeW8A16RunsInEdgeqAndOnnxRuntime) {
  REQUIRE_FIXTURE();
  const std::string stats = full_stats();
  ASSERT_TRUE(fs::exists(stats));
  const std::string qpath = fx.dir + "/w8a16.onnx", enc = fx.dir + "/w8a16.json";
  auto r = test::run_cli("quantize --model " + test::shell_quote(fx.model) + " --stats " +
                         test::shell_quote(stats) + " --scheme w8a16 --range mse --out " +
                         test::shell_quote(qpath) + " --encodings " + test::shell_quote(enc));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("%s", r.out.c_str());
  EXPECT_NE(r.out.find(" 0 at 8 bit"), std::string::npos) << r.out;  // all activations 16 bit
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(enc));
  // Every activation encoding read back from the QDQ model is 16 bit.
  EncodingSet back = encodings_from_qdq(load_onnx(qpath));
  ASSERT_FALSE(back.activations.empty());
  for (const auto& [name, te] : back.activations)
    if (!te.is_float) {
      EXPECT_EQ(te.channels.at(0).bitwidth, 16) << name;
    }

  auto images = list_images(fx.images);
  auto inf = test::run_cli("infer --model " + test::shell_quote(qpath) + " --image " +
                           test::shell_quote(images[0]) + " --out " +
                           test::shell_quote(fx.dir + "/infer"));
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  EXPECT_TRUE(fs::exists(fx.dir + "/infer/output0.npy"));

  EDGEQ_REQUIRE_ORT();
  expect_agrees_with_ort(qpath, images, "W8A16 mse ort");
}

// The other placement and the other 16-bit Q/DQ form, each on its own.
TEST(QuantCli, W8A16QnnPlacementAndOpset21AgreeWithOnnxRuntime) {
  REQUIRE_FIXTURE();
  EDGEQ_REQUIRE_ORT();
  for (const std::string flags : {"--placement qnn", "--qdq16 opset21"}) {
    const std::string qpath = fx.dir + "/w8a16_" + flags.substr(2, 5) + ".onnx";
    auto r = test::run_cli("quantize --model " + test::shell_quote(fx.model) + " --stats " +
                           test::shell_quote(full_stats()) + " --scheme w8a16 --range mse " +
                           flags + " --out " + test::shell_quote(qpath));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Graph g = load_onnx(qpath);
    if (flags == "--qdq16 opset21") {
      EXPECT_GE(g.opset(), 21);
      for (const Node& n : g.nodes)
        if (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") {
          EXPECT_EQ(n.domain, "") << n.name;  // ONNX domain, not com.microsoft
        }
    }
    expect_agrees_with_ort(qpath, list_images(fx.images), ("W8A16 mse " + flags).c_str());
  }
}

TEST(QuantCli, ShardedCalibrationMergedGivesTheSameModelBytes) {
  REQUIRE_FIXTURE();
  const std::string d = fx.dir + "/shards";
  ensure_dir(d);
  for (const char* s : {"0/2", "1/2"}) {
    std::string out = d + "/s" + std::string(1, s[0]) + ".stats";
    auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                           test::shell_quote(fx.images) + " --n 8 --shard " + s + " --out " +
                           test::shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto m = test::run_cli("stats merge " + test::shell_quote(d + "/s0.stats") + " " +
                         test::shell_quote(d + "/s1.stats") + " -o " +
                         test::shell_quote(d + "/merged.stats"));
  ASSERT_EQ(m.exit_code, 0) << m.err;
  for (const std::string& st : {full_stats(), d + "/merged.stats"}) {
    std::string out = d + (st == full_stats() ? "/one.onnx" : "/merged.onnx");
    auto r = test::run_cli(
        "quantize --model " + test::shell_quote(fx.model) + " --stats " + test::shell_quote(st) +
        " --scheme w8a8 --range entropy --a16 decode --out " + test::shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string a = read_file(d + "/one.onnx"), b = read_file(d + "/merged.onnx");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "one pass and merged shards gave different QDQ models";
  // The shard sizes: 8 sampled images (or fewer), every 2nd.
  EXPECT_NE(m.out.find("8 images"), std::string::npos) << m.out;
  // The statistics themselves: one pass's bytes (the sample they record included).
  EXPECT_TRUE(read_file(d + "/merged.stats") == read_file(full_stats()));

  // Issue 46: a shard merged twice (or with its copy) counted its images twice, and shards of
  // another --seed or --n merged silently. Each is refused now, one line, nothing written.
  fs::copy_file(d + "/s0.stats", d + "/s0_copy.stats");
  const std::string bad = d + "/bad.stats";
  auto merge = [&](const std::string& a, const std::string& b) {
    return test::run_cli("stats merge " + test::shell_quote(a) + " " + test::shell_quote(b) +
                         " -o " + test::shell_quote(bad));
  };
  test::expect_refusal(merge(d + "/s0.stats", d + "/s0_copy.stats"), "shard 0/2 is in both", bad);
  test::expect_refusal(merge(d + "/merged.stats", d + "/s1.stats"), "4 images are in both", bad);
  for (const std::string other : {"--seed 1 --n 8", "--seed 0 --n 9"}) {
    const std::string o = d + "/other.stats";
    auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                           test::shell_quote(fx.images) + " " + other + " --shard 1/8 --out " +
                           test::shell_quote(o));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    test::expect_refusal(merge(d + "/s0.stats", o), "cannot merge stats of different samples", bad);
  }
}

// The stats file does not depend on how many images are calibrated at once (each worker's
// statistics merge exactly), and --json says how the run was split.
TEST(QuantCli, CalibrationWorkersWriteTheSameStatsBytes) {
  REQUIRE_FIXTURE();
  const std::string d = fx.dir + "/workers";
  ensure_dir(d);
  for (const char* w : {"1", "3"}) {
    auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                           test::shell_quote(fx.images) + " --n 8 --threads 3 --workers " + w +
                           " --out " + test::shell_quote(d + "/w" + w + ".stats") + " --json " +
                           test::shell_quote(d + "/w" + w + ".json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Forwards always run on one thread per worker (oneDNN's summation order may depend on
    // how many threads split a convolution: at 3 threads it does on yolo11n-pose).
    EXPECT_NE(
        r.out.find(std::string(w) + (w[0] == '1' ? " worker x 1 thread" : " workers x 1 thread")),
        std::string::npos)
        << r.out;
    const auto j = nlohmann::json::parse(read_file(d + "/w" + w + ".json"));
    EXPECT_EQ(j.at("workers").get<int>(), std::stoi(w));
    EXPECT_GT(j.at("ms_per_image").get<double>(), 0.0);
  }
  EXPECT_TRUE(read_file(full_stats()) == read_file(d + "/w1.stats"));
  EXPECT_TRUE(read_file(d + "/w1.stats") == read_file(d + "/w3.stats"));
}

// W8A8 keeps the decode tail at 16 bit unless told otherwise: the default and an explicit
// `--a16 decode` write the same bytes (output0 assembled in float, its pixel decode at 16 bit);
// `--a16 none` leaves output0 at 8 bit (every score rounds to 0) and warns once.
TEST(QuantCli, W8A8KeepsTheDecodeTailAt16BitUnlessA16None) {
  REQUIRE_FIXTURE();
  const std::string base = "quantize --model " + test::shell_quote(fx.model) + " --stats " +
                           test::shell_quote(full_stats()) + " --scheme w8a8";
  auto plain = test::run_cli(base + " --out " + test::shell_quote(fx.dir + "/w8a8.onnx"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("warning"), std::string::npos) << plain.err;
  auto decode =
      test::run_cli(base + " --a16 decode --out " + test::shell_quote(fx.dir + "/w8a8d.onnx"));
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  EXPECT_TRUE(read_file(fx.dir + "/w8a8.onnx") == read_file(fx.dir + "/w8a8d.onnx"));
  auto none =
      test::run_cli(base + " --a16 none --out " + test::shell_quote(fx.dir + "/w8a8n.onnx"));
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.err.find("a16 'decode'"), std::string::npos) << none.err;
  EXPECT_EQ(count_lines(none.err), 1) << none.err;
  auto mixed =
      test::run_cli(base + " --a16 none,decode --out " + test::shell_quote(fx.dir + "/w8a8x.onnx"));
  EXPECT_NE(mixed.exit_code, 0);
  EXPECT_NE(mixed.err.find("a16: 'none' cannot be combined"), std::string::npos) << mixed.err;
  EXPECT_FALSE(fs::exists(fx.dir + "/w8a8x.onnx"));

  EncodingSet e16 = encodings_from_qdq(load_onnx(fx.dir + "/w8a8.onnx"));
  EncodingSet e8 = encodings_from_qdq(load_onnx(fx.dir + "/w8a8n.onnx"));
  ASSERT_TRUE(e8.activations.count("output0"));
  EXPECT_EQ(e8.activations.at("output0").channels.at(0).bitwidth, 8);
  auto out16 = e16.activations.find("output0");
  EXPECT_TRUE(out16 == e16.activations.end() || out16->second.is_float);
  ASSERT_TRUE(e16.activations.count("/model.23/Mul_output_0"));  // the boxes in pixels
  EXPECT_EQ(e16.activations.at("/model.23/Mul_output_0").channels.at(0).bitwidth, 16);
  // Only the decode tail went to 16 bit: most activations stay 8 bit.
  size_t n16 = 0, n8 = 0;
  for (const auto& [name, te] : e16.activations)
    if (!te.is_float) (te.channels.at(0).bitwidth == 16 ? n16 : n8)++;
  std::printf("w8a8 default: %zu activations at 16 bit, %zu at 8 bit\n", n16, n8);
  EXPECT_GT(n16, 3u);
  EXPECT_GT(n8, 10 * n16);
  // ONNX Runtime loads and runs the mixed 8/16-bit model (8-bit Q/DQ in the ONNX domain, 16-bit
  // ones per --qdq16) as the QDQ formula (graph optimization "basic") and scores the same anchors
  // above 0.25 (at least 80% overlap: at 8 bit a rounding flip between runtimes can move a
  // borderline score across the threshold).
  EDGEQ_REQUIRE_ORT();
  const std::string img = list_images(fx.images).at(0);
  std::map<std::string, Tensor> feed = {
      {"images", preprocess_image(read_image(img), 640, 640, nullptr)}};
  Tensor ours = Executor(load_onnx(fx.dir + "/w8a8.onnx")).run(feed).at("output0");
  Tensor ort = test::run_ort(fx.dir + "/w8a8.onnx", feed).at("output0");
  ASSERT_EQ(ours.shape(), ort.shape());
  const int64_t n = ours.dim(2);
  size_t both = 0, either = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool a = ours.data<float>()[4 * n + i] > 0.25f, b = ort.data<float>()[4 * n + i] > 0.25f;
    both += a && b;
    either += a || b;
  }
  std::printf("W8A8 default, edgeq vs ORT: %zu anchors > 0.25 in both, %zu in either\n", both,
              either);
  EXPECT_GT(both, 0u);
  EXPECT_GE(both, either * 8 / 10);
}

// The outputs are assembled in float (quant/decode_tail.h: output_assembly_nodes). Under one
// encoding with the pixel coordinates, even a 16-bit one, every score of output0 sat on a grid of
// ~0.01 (at most ~90 distinct values): on the dev split W8A16 lost 7 of 188 detections near the
// threshold and half of its low-score predictions. Counted here: distinct scores below 0.05 in one
// forward (W8A16: the 16-bit Sigmoid's levels; `--a16 none`: output0's 8-bit grid rounds them
// all to 0).
TEST(QuantCli, ScoresKeepTheirPrecisionBesidePixelCoordinates) {
  REQUIRE_FIXTURE();
  const std::map<std::string, Tensor> feed = {
      {"images", preprocess_image(read_image(list_images(fx.images).at(0)), 640, 640, nullptr)}};
  auto distinct_scores = [&](const std::string& flags) {
    const std::string out = fx.dir + "/assembly.onnx";
    auto r = test::run_cli("quantize --model " + test::shell_quote(fx.model) + " --stats " +
                           test::shell_quote(full_stats()) + " " + flags + " --out " +
                           test::shell_quote(out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Graph q = load_onnx(out);
    if (flags.find("none") == std::string::npos) {  // output0 comes straight from a float Concat
      EXPECT_EQ(q.nodes.at(q.producer_of("output0")).op_type, "Concat") << flags;
    }
    Tensor y = Executor(std::move(q)).run(feed).at("output0");
    const int64_t n = y.dim(2);
    std::set<float> low;
    for (int64_t i = 0; i < n; ++i)
      if (y.data<float>()[4 * n + i] < 0.05f) low.insert(y.data<float>()[4 * n + i]);
    std::printf("%s: %zu distinct scores below 0.05\n", flags.c_str(), low.size());
    return low.size();
  };
  EXPECT_GE(distinct_scores("--scheme w8a16"), 20u);  // a 0.01 grid has 5 levels there
  EXPECT_LE(distinct_scores("--scheme w8a8 --a16 none"), 2u);
}

// ---- bad input: one clear line, nothing written ---------------------------------------------

using test::expect_refusal;

TEST(QuantCliBadInput, EmptyOrUnreadableImageFolder) {
  REQUIRE_FIXTURE();
  const std::string empty = fx.dir + "/empty", junk = fx.dir + "/junk", out = fx.dir + "/bad.stats";
  ensure_dir(empty);
  ensure_dir(junk);
  write_file_atomic(junk + "/broken.jpg", "not a jpeg");
  expect_refusal(test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                               test::shell_quote(empty) + " --out " + test::shell_quote(out)),
                 "holds no images", out);
  auto r = test::run_cli("calibrate --model " + test::shell_quote(fx.model) + " --images " +
                         test::shell_quote(junk) + " --out " + test::shell_quote(out));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no readable image"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken.jpg"), std::string::npos) << r.err;  // the skip names the file
  EXPECT_FALSE(fs::exists(out));
}

TEST(QuantCliBadInput, StatsFromAnotherModel) {
  REQUIRE_FIXTURE();
  // Another model: the same graph with one weight nudged (other bytes, other SHA-256).
  Graph g = load_onnx(fx.model);
  for (auto& [name, t] : g.initializers)
    if (t.dtype() == DType::kFloat32 && t.numel() > 100) {
      t = t.clone();
      t.data<float>()[0] += 0.5f;
      break;
    }
  const std::string other = fx.dir + "/other.onnx", out = fx.dir + "/other_q.onnx";
  save_onnx(g, other);
  expect_refusal(test::run_cli("quantize --model " + test::shell_quote(other) + " --stats " +
                               test::shell_quote(full_stats()) + " --scheme w8a16 --out " +
                               test::shell_quote(out)),
                 "stats were computed for another model", out);
  // Merging stats of different models is refused too.
  const std::string os = fx.dir + "/other.stats", merged = fx.dir + "/bad_merge.stats";
  auto images = list_images(fx.images);
  ASSERT_EQ(test::run_cli("calibrate --model " + test::shell_quote(other) + " --images " +
                          test::shell_quote(images[0]) + " --out " + test::shell_quote(os))
                .exit_code,
            0);
  auto m = test::run_cli("stats merge " + test::shell_quote(full_stats()) + " " +
                         test::shell_quote(os) + " -o " + test::shell_quote(merged));
  EXPECT_NE(m.exit_code, 0);
  EXPECT_EQ(count_lines(m.err), 1) << m.err;
  EXPECT_FALSE(fs::exists(merged));
}

TEST(QuantCliBadInput, OverridesNamingUnknownTensors) {
  REQUIRE_FIXTURE();
  const std::string ov = fx.dir + "/overrides.json", out = fx.dir + "/ov.onnx";
  write_file_atomic(ov, R"({"no_such_tensor": {"bitwidth": 16, "min": -1, "max": 1}})");
  expect_refusal(test::run_cli("quantize --model " + test::shell_quote(fx.model) + " --stats " +
                               test::shell_quote(full_stats()) + " --scheme w8a16 --overrides " +
                               test::shell_quote(ov) + " --out " + test::shell_quote(out) +
                               " --encodings " + test::shell_quote(out + ".json")),
                 "no_such_tensor", out);
  EXPECT_FALSE(fs::exists(out + ".json"));
}

TEST(QuantCliBadInput, NaNWeight) {
  REQUIRE_FIXTURE();
  Graph g = load_onnx(fx.model);
  std::string poisoned;
  for (auto& [name, t] : g.initializers)
    if (t.dtype() == DType::kFloat32 && t.numel() > 100) {
      t = t.clone();
      t.data<float>()[t.numel() / 2] = std::nanf("");
      poisoned = name;
      break;
    }
  ASSERT_FALSE(poisoned.empty());
  const std::string model = fx.dir + "/nan.onnx", out = fx.dir + "/nan.stats";
  save_onnx(g, model);
  expect_refusal(
      test::run_cli("calibrate --model " + test::shell_quote(model) + " --images " +
                    test::shell_quote(fx.images) + " --n 2 --out " + test::shell_quote(out)),
      "'" + poisoned + "'", out);
}

TEST(QuantCliBadInput, NaNActivationNamesTheFirstValue) {
  // images [1,3,32,32] -> Sub(x, 2) -> Sqrt (NaN for every pixel) -> Relu: the Sqrt output is the
  // first value with NaN in execution order.
  REQUIRE_FIXTURE();
  Graph g;
  g.inputs.push_back({"images", DType::kFloat32, {1, 3, 32, 32}});
  g.initializers["two"] = Tensor::scalar<float>(2.0f);
  Node sub;
  sub.name = "sub";
  sub.op_type = "Sub";
  sub.inputs = {"images", "two"};
  sub.outputs = {"shifted"};
  Node sq;
  sq.name = "sqrt";
  sq.op_type = "Sqrt";
  sq.inputs = {"shifted"};
  sq.outputs = {"root"};
  Node relu;
  relu.name = "relu";
  relu.op_type = "Relu";
  relu.inputs = {"root"};
  relu.outputs = {"out"};
  g.nodes = {sub, sq, relu};
  g.outputs.push_back({"out", DType::kFloat32, {1, 3, 32, 32}});
  const std::string model = fx.dir + "/nan_act.onnx", out = fx.dir + "/nan_act.stats";
  save_onnx(g, model);
  expect_refusal(
      test::run_cli("calibrate --model " + test::shell_quote(model) + " --images " +
                    test::shell_quote(fx.images) + " --n 2 --out " + test::shell_quote(out)),
      "activation 'root'", out);
}

}  // namespace
}  // namespace edgeq
