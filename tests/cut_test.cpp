// Cutting arms A/B/C and pooled taps: structure, and values against the full model's layer
// outputs pooled by plain loops here, in our executor and in ONNX Runtime.
#include "ir/cut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "cli_util.h"
#include "core/error.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

Tensor random_image(uint32_t seed) {
  Tensor t(DType::kFloat32, {1, 3, 640, 640});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(rng);
  return t;
}

// Layer N's output as the first input of the first node of layer N+1: independent of
// layer_output(). True for N = 4, 6, 8 (next layer is a Conv / SPPF) and 10 (Upsample).
std::string input_of_next_layer(const Graph& g, int layer) {
  const std::string prefix = "/model." + std::to_string(layer + 1) + "/";
  for (const auto& n : g.nodes)
    if (n.name.rfind(prefix, 0) == 0) return n.inputs[0];
  ADD_FAILURE() << "no node " << prefix;
  return "";
}

// Runs `g` once on `x`, returning the graph outputs plus copies of the watched values.
std::map<std::string, Tensor> run_watching(const Graph& g, const Tensor& x,
                                           const std::vector<std::string>& watch) {
  Executor ex(g);
  std::map<std::string, Tensor> seen;
  for (const auto& v : watch)
    ex.add_hook(v, [&seen](const std::string& name, const Tensor& t) { seen[name] = t.clone(); });
  auto out = ex.run({{"images", x}});
  for (auto& kv : seen) out[kv.first] = kv.second;
  return out;
}

struct Pooled {
  std::vector<double> avg, max;
};

Pooled pool_plain(const Tensor& t) {
  const int64_t c = t.dim(1), hw = t.dim(2) * t.dim(3);
  Pooled p;
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* v = t.data<float>() + ch * hw;
    double sum = 0, mx = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < hw; ++i) {
      sum += v[i];
      mx = std::max<double>(mx, v[i]);
    }
    p.avg.push_back(sum / hw);
    p.max.push_back(mx);
  }
  return p;
}

// Checks tap tensors [1,C,1,1] against plain pooling of the layer output.
void expect_taps(const std::map<std::string, Tensor>& taps, const Tensor& layer_out, int layer,
                 double tol, const std::string& who) {
  Pooled want = pool_plain(layer_out);
  const int64_t c = layer_out.dim(1);
  for (const auto& [name, ref] :
       {std::pair<std::string, const std::vector<double>*>{tap_avg_name(layer), &want.avg},
        {tap_max_name(layer), &want.max}}) {
    auto it = taps.find(name);
    ASSERT_NE(it, taps.end()) << who << ": missing " << name;
    ASSERT_EQ(it->second.numel(), c) << who << " " << name;
    double worst = 0;
    for (int64_t i = 0; i < c; ++i)
      worst = std::max(worst, std::fabs(it->second.data<float>()[i] - (*ref)[i]));
    EXPECT_LE(worst, tol) << who << " " << name;
  }
}

std::vector<int> layers_in(const Graph& g) {
  std::vector<int> out;
  for (const auto& n : g.nodes) out.push_back(layer_of_node(n.name));
  return out;
}

TEST(Cut, LayerOfNodeName) {
  EXPECT_EQ(layer_of_node("/model.0/conv/Conv"), 0);
  EXPECT_EQ(layer_of_node("/model.23/dfl/Softmax"), 23);
  EXPECT_EQ(layer_of_node("/model.12/Concat"), 12);
  EXPECT_EQ(layer_of_node("/model./Concat"), -1);
  EXPECT_EQ(layer_of_node("/model.7"), -1);
  EXPECT_EQ(layer_of_node("model.7/x"), -1);
  EXPECT_EQ(layer_of_node("/tap4/GlobalMaxPool"), -1);
}

TEST(Cut, ParseArm) {
  EXPECT_EQ(parse<Arm>("a"), Arm::kA);
  EXPECT_EQ(parse<Arm>("B"), Arm::kB);
  EXPECT_EQ(parse<Arm>("c"), Arm::kC);
  try {
    parse<Arm>("D");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "arm: 'D' is not one of A, B, C, head");
  }
}

class CutZoo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = new Graph(build_yolo11("yolo11n-pose")); }
  static void TearDownTestSuite() {
    delete model_;
    model_ = nullptr;
  }
  static Graph* model_;
};
Graph* CutZoo::model_ = nullptr;

TEST_F(CutZoo, LayerOutputIsWhatTheNextLayerReads) {
  for (int l : {4, 6, 8, 10})
    EXPECT_EQ(layer_output(*model_, l), input_of_next_layer(*model_, l)) << "layer " << l;
  // Layer 23 (the head) ends in the graph output.
  EXPECT_EQ(layer_output(*model_, 23), model_->outputs[0].name);
}

TEST_F(CutZoo, ArmAHasEightPooledTapsEqualToPlainPooling) {
  CutSpec spec;
  spec.arm = Arm::kA;
  Graph a = cut_model(*model_, spec);
  ASSERT_EQ(a.outputs.size(), 8u);
  EXPECT_EQ(a.outputs[0].name, "tap_avg4");
  EXPECT_EQ(a.outputs[1].name, "tap_max4");
  EXPECT_EQ(a.outputs[7].name, "tap_max10");
  for (const auto& o : a.outputs) {
    ASSERT_EQ(o.shape.size(), 4u) << o.name;
    EXPECT_EQ(o.shape[2], 1);
    EXPECT_EQ(o.shape[3], 1);
  }
  for (int l : layers_in(a)) EXPECT_LE(l, 10);  // taps have no layer (-1); nothing above 10
  EXPECT_LT(a.nodes.size(), model_->nodes.size());

  const Tensor x = random_image(1);
  std::vector<std::string> watch;
  for (int l : {4, 6, 8, 10}) watch.push_back(input_of_next_layer(*model_, l));
  auto full = run_watching(*model_, x, watch);
  auto taps = run_watching(a, x, {});
  for (int i = 0; i < 4; ++i) {
    const int l = 4 + 2 * i;
    expect_taps(taps, full.at(watch[i]), l, 1e-4, "edgeq");
  }
  EDGEQ_REQUIRE_ORT();
  const std::string path = test::temp_dir("cut") + "/armA.onnx";
  save_onnx(a, path);
  auto ort = test::run_ort(path, {{"images", x}});
  for (int i = 0; i < 4; ++i) expect_taps(ort, full.at(watch[i]), 4 + 2 * i, 1e-3, "ORT");
}

TEST_F(CutZoo, ArmBEndsAtP3P4P5) {
  CutSpec spec;
  spec.arm = Arm::kB;
  Graph b = cut_model(*model_, spec);
  ASSERT_EQ(b.outputs.size(), 3u);
  EXPECT_EQ(b.outputs[0].shape, (Shape{1, b.outputs[0].shape[1], 80, 80}));
  EXPECT_EQ(b.outputs[1].shape, (Shape{1, b.outputs[1].shape[1], 40, 40}));
  EXPECT_EQ(b.outputs[2].shape, (Shape{1, b.outputs[2].shape[1], 20, 20}));
  for (int l : layers_in(b)) EXPECT_LE(l, 22);
  // The head (layer 23) reads exactly these three values from outside itself.
  std::set<std::string> head_reads;
  for (const auto& n : model_->nodes)
    if (layer_of_node(n.name) == 23)
      for (const auto& in : n.inputs) {
        const int p = model_->producer_of(in);
        if (p >= 0 && layer_of_node(model_->nodes[p].name) != 23) head_reads.insert(in);
      }
  std::set<std::string> outs;
  for (const auto& o : b.outputs) outs.insert(o.name);
  EXPECT_EQ(outs, head_reads);

  const Tensor x = random_image(2);
  std::vector<std::string> names(outs.begin(), outs.end());
  auto full = run_watching(*model_, x, names);
  auto got = run_watching(b, x, {});
  for (const auto& n : names) EXPECT_LE(test::max_abs_diff(got.at(n), full.at(n)), 1e-4) << n;
}

TEST_F(CutZoo, ArmCKeepsOutputAndAddsTaps) {
  CutSpec spec;
  spec.arm = Arm::kC;
  spec.taps = {6};
  spec.taps_given = true;
  Graph c = cut_model(*model_, spec);
  ASSERT_EQ(c.outputs.size(), 3u);
  EXPECT_EQ(c.outputs[0].name, "output0");
  EXPECT_EQ(c.outputs[1].name, "tap_avg6");
  EXPECT_EQ(c.nodes.size(), model_->nodes.size() + 2);
  const Tensor x = random_image(3);
  const std::string l6 = input_of_next_layer(*model_, 6);
  auto full = run_watching(*model_, x, {l6});
  auto got = run_watching(c, x, {});
  EXPECT_LE(test::max_abs_diff(got.at("output0"), full.at("output0")), 1e-3);
  expect_taps(got, full.at(l6), 6, 1e-4, "edgeq");
}

TEST_F(CutZoo, BadTapsAndArms) {
  auto message = [&](CutSpec spec) -> std::string {
    try {
      cut_model(*model_, spec);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  CutSpec a;
  a.arm = Arm::kA;
  a.taps = {16};
  EXPECT_NE(message(a).find("tap layer 16 is outside arm A (layers 0-10)"), std::string::npos)
      << message(a);
  CutSpec c;
  c.arm = Arm::kC;
  c.taps = {30};
  EXPECT_NE(message(c).find("tap layer 30 is outside arm C (layers 0-23)"), std::string::npos)
      << message(c);
  c.taps = {4, 4};
  EXPECT_NE(message(c).find("tap layer 4 is given twice"), std::string::npos) << message(c);
}

TEST(Cut, ModelWithoutUltralyticsNames) {
  Graph g;
  g.inputs.push_back({"x", DType::kFloat32, {1, 3, 8, 8}});
  g.nodes.push_back(test::node("relu_1", "Relu", {"x"}, {"y"}));
  g.outputs.push_back({"y", DType::kFloat32, {1, 3, 8, 8}});
  try {
    cut_model(g, CutSpec{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no Ultralytics-style node names"), std::string::npos)
        << e.what();
  }
}

TEST(CutReal, ArmsOfTheRealModelInEdgeqAndOrt) {
  EDGEQ_REQUIRE_REAL_DATA();
  Graph model = load_onnx(test::real_model_path());
  const Tensor x = random_image(4);
  CutSpec sa;
  sa.arm = Arm::kA;
  Graph a = cut_model(model, sa);
  CutSpec sb;
  sb.arm = Arm::kB;
  Graph b = cut_model(model, sb);
  ASSERT_EQ(b.outputs.size(), 3u);
  const int64_t sizes[] = {80, 40, 20};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b.outputs[i].shape.size(), 4u);
    EXPECT_EQ(b.outputs[i].shape[2], sizes[i]) << b.outputs[i].name;
    EXPECT_EQ(b.outputs[i].shape[3], sizes[i]) << b.outputs[i].name;
  }
  std::vector<std::string> watch;
  for (int l : {4, 6, 8, 10}) watch.push_back(input_of_next_layer(model, l));
  for (const auto& o : b.outputs) watch.push_back(o.name);
  auto full = run_watching(model, x, watch);
  auto ta = run_watching(a, x, {});
  for (int i = 0; i < 4; ++i) expect_taps(ta, full.at(watch[i]), 4 + 2 * i, 1e-4, "edgeq");
  auto tb = run_watching(b, x, {});
  for (const auto& o : b.outputs)
    EXPECT_LE(test::max_abs_diff(tb.at(o.name), full.at(o.name)), 1e-4) << o.name;

  EDGEQ_REQUIRE_ORT();
  const std::string dir = test::temp_dir("cut_real");
  save_onnx(a, dir + "/a.onnx");
  save_onnx(b, dir + "/b.onnx");
  auto oa = test::run_ort(dir + "/a.onnx", {{"images", x}});
  for (int i = 0; i < 4; ++i) expect_taps(oa, full.at(watch[i]), 4 + 2 * i, 1e-3, "ORT");
  auto ob = test::run_ort(dir + "/b.onnx", {{"images", x}});
  auto ort_name = [](std::string s) {
    for (char& ch : s)
      if (ch == '/' || ch == '\\' || ch == ':') ch = '_';
    return s;
  };
  for (const auto& o : b.outputs) {
    auto it = ob.find(ort_name(o.name));
    ASSERT_NE(it, ob.end()) << o.name;
    EXPECT_EQ(it->second.shape(), o.shape);
    EXPECT_LE(test::max_abs_diff(it->second, full.at(o.name)), 2e-3) << o.name;
  }
}

TEST(CutCli, WritesArmAndRejectsBadInput) {
  const std::string dir = test::temp_dir("cut_cli");
  auto z = test::run_cli("zoo yolo11n -o '" + dir + "/m.onnx'");
  ASSERT_EQ(z.exit_code, 0) << z.err;
  auto r = test::run_cli("cut --model '" + dir + "/m.onnx' --arm A --taps 4,10 --out '" + dir +
                         "/a.onnx'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tap_avg4"), std::string::npos) << r.out;
  Graph a = load_onnx(dir + "/a.onnx");
  ASSERT_EQ(a.outputs.size(), 4u);
  EXPECT_EQ(a.outputs[3].name, "tap_max10");

  auto bad_arm =
      test::run_cli("cut --model '" + dir + "/m.onnx' --arm Z --out '" + dir + "/z.onnx'");
  EXPECT_NE(bad_arm.exit_code, 0);
  EXPECT_NE(bad_arm.err.find("--arm: 'Z' is not one of A, B, C, head"), std::string::npos)
      << bad_arm.err;
  auto bad_tap = test::run_cli("cut --model '" + dir + "/m.onnx' --arm A --taps 4,x --out '" + dir +
                               "/z.onnx'");
  EXPECT_NE(bad_tap.exit_code, 0);
  EXPECT_NE(bad_tap.err.find("--taps: 'x' is not a layer index"), std::string::npos) << bad_tap.err;
}

}  // namespace
}  // namespace edgeq
