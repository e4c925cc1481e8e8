// The synthetic YOLO11 zoo: topology against the real export and Ultralytics' published counts,
// file round trips, determinism, and that the models run with sane activations and outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "cli_util.h"
#include "core/error.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

std::map<std::string, int> op_histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const auto& n : g.nodes) h[n.op_type]++;
  return h;
}

// Parameters as Ultralytics counts them after fusing BN: every Conv weight and bias.
int64_t conv_parameters(const Graph& g) {
  int64_t total = 0;
  for (const auto& n : g.nodes) {
    if (n.op_type != "Conv") continue;
    for (size_t i = 1; i < n.inputs.size(); ++i) total += g.initializers.at(n.inputs[i]).numel();
  }
  return total;
}

bool same_attribute(const Attribute& a, const Attribute& b) {
  return a.kind == b.kind && a.i == b.i && a.f == b.f && a.s == b.s && a.ints == b.ints &&
         a.floats == b.floats;
}

// Anchors whose best class score is above `conf` in a raw output [1, 4 + nc (+ 51), A].
int anchors_above(const Tensor& out, int64_t nc, float conf) {
  const int64_t a = out.dim(2);
  int count = 0;
  for (int64_t j = 0; j < a; ++j) {
    float best = 0;
    for (int64_t c = 0; c < nc; ++c) best = std::max(best, out.data<float>()[(4 + c) * a + j]);
    count += best > conf;
  }
  return count;
}

const std::map<std::string, int> kPoseHistogram = {
    // From models/README.md (the real YOLO11n-pose export).
    {"Conv", 97},    {"Sigmoid", 85}, {"Mul", 87},    {"Concat", 26},   {"Add", 17},
    {"Reshape", 13}, {"Split", 12},   {"MaxPool", 3}, {"Transpose", 3}, {"MatMul", 2},
    {"Softmax", 2},  {"Resize", 2},   {"Sub", 2},     {"Slice", 2},     {"Div", 1}};

TEST(Zoo, PoseOpHistogramIsTheRealExportOne) {
  Graph g = build_yolo11("yolo11n-pose");
  EXPECT_EQ(g.nodes.size(), 354u);
  EXPECT_EQ(op_histogram(g), kPoseHistogram);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].name, "output0");
  EXPECT_EQ(g.outputs[0].shape, (Shape{1, 56, 8400}));
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.inputs[0].name, "images");
  EXPECT_EQ(g.inputs[0].shape, (Shape{1, 3, 640, 640}));
  EXPECT_EQ(g.opset(), 17);
}

// Node by node against the real export: names, ops, wiring, attributes, initializer names and
// shapes, and the values of every constant that is not a trained weight.
TEST(Zoo, PoseMatchesTheRealExportNodeByNode) {
  EDGEQ_REQUIRE_REAL_DATA();
  Graph real = load_onnx(test::real_model_path());
  Graph zoo = build_yolo11("yolo11n-pose");
  EXPECT_EQ(op_histogram(zoo), op_histogram(real));
  ASSERT_EQ(zoo.nodes.size(), real.nodes.size());
  for (size_t i = 0; i < real.nodes.size(); ++i) {
    const Node &r = real.nodes[i], &z = zoo.nodes[i];
    ASSERT_EQ(z.name, r.name) << "node " << i;
    EXPECT_EQ(z.op_type, r.op_type) << r.name;
    EXPECT_EQ(z.inputs, r.inputs) << r.name;
    EXPECT_EQ(z.outputs, r.outputs) << r.name;
    ASSERT_EQ(z.attrs.size(), r.attrs.size()) << r.name;
    for (const auto& [key, value] : r.attrs) {
      ASSERT_TRUE(z.has_attr(key)) << r.name << " lacks " << key;
      EXPECT_TRUE(same_attribute(z.attrs.at(key), value)) << r.name << " attribute " << key;
    }
  }
  ASSERT_EQ(zoo.initializers.size(), real.initializers.size());
  for (const auto& [name, t] : real.initializers) {
    ASSERT_TRUE(zoo.is_initializer(name)) << name;
    const Tensor& z = zoo.initializers.at(name);
    EXPECT_EQ(z.shape(), t.shape()) << name;
    EXPECT_EQ(z.dtype(), t.dtype()) << name;
    bool trained = name.rfind("model.", 0) == 0 && name.find(".dfl.") == std::string::npos;
    if (trained) continue;
    if (t.dtype() == DType::kInt64) {
      EXPECT_EQ(z.to_ints(), t.to_ints()) << name;
    } else {
      auto a = z.to_floats(), b = t.to_floats();
      double worst = 0;
      for (size_t k = 0; k < a.size(); ++k) worst = std::max(worst, double(std::fabs(a[k] - b[k])));
      EXPECT_LE(worst, 1e-6) << name;
    }
  }
  for (const char* key : {"task", "kpt_shape", "names", "stride", "imgsz", "batch", "channels"})
    EXPECT_EQ(zoo.metadata_value(key), real.metadata_value(key)) << key;
  EXPECT_EQ(zoo.outputs[0].shape, real.outputs[0].shape);
}

TEST(Zoo, ParameterCountsAreUltralyticsFusedCounts) {
  // Ultralytics' fused model summaries (BN folded into conv bias; DFL's 16 weights included).
  EXPECT_EQ(conv_parameters(build_yolo11("yolo11n")), 2616248);
  EXPECT_EQ(conv_parameters(build_yolo11("yolo11s")), 9443760);
  EXPECT_EQ(conv_parameters(build_yolo11("yolo11n-pose")), 2866468);
  EXPECT_EQ(conv_parameters(build_yolo11("yolo11s-pose")), 9902940);
}

TEST(Zoo, DetectModelsEndInTheDetectDecode) {
  for (const char* name : {"yolo11n", "yolo11s"}) {
    Graph g = build_yolo11(name);
    EXPECT_EQ(g.outputs[0].shape, (Shape{1, 84, 8400})) << name;
    auto h = op_histogram(g);
    EXPECT_EQ(h.count("Slice"), 0u) << name;  // no keypoint decode
    EXPECT_EQ(h["Softmax"], 2) << name;       // attention + DFL
    EXPECT_EQ(h["Div"], 1) << name;
    const Node& last = g.nodes.back();
    EXPECT_EQ(last.name, "/model.23/Concat_5") << name;
    EXPECT_EQ(last.outputs, std::vector<std::string>{"output0"}) << name;
    EXPECT_EQ(g.metadata_value("task"), std::optional<std::string>("detect"));
    auto names = g.metadata_value("names");
    ASSERT_TRUE(names.has_value());
    EXPECT_EQ(names->rfind("{0: 'person', 1: 'bicycle', ", 0), 0u);
    EXPECT_NE(names->find("79: 'toothbrush'}"), std::string::npos);
  }
}

TEST(Zoo, NamesAreUniqueAndTheGraphIsWellFormed) {
  for (const auto& name : zoo_model_names()) {
    Graph g = build_yolo11(name);
    std::set<std::string> node_names, values;
    for (const auto& n : g.nodes) {
      EXPECT_TRUE(node_names.insert(n.name).second) << name << ": duplicate node " << n.name;
      for (const auto& o : n.outputs) EXPECT_TRUE(values.insert(o).second) << name << ": " << o;
    }
    // Every input defined, no cycles, and already in execution order.
    std::vector<int> order = g.topo_order();
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], static_cast<int>(i)) << name;
    // Nothing dead: every node feeds the output.
    size_t before = g.nodes.size(), inits = g.initializers.size();
    g.remove_dead_nodes();
    EXPECT_EQ(g.nodes.size(), before) << name;
    EXPECT_EQ(g.initializers.size(), inits) << name;
  }
}

TEST(Zoo, SaveLoadRoundTripIsExact) {
  std::string dir = test::temp_dir("zoo");
  for (const char* name : {"yolo11n", "yolo11n-pose"}) {
    Graph g = build_yolo11(name);
    std::string path = dir + "/" + name + ".onnx";
    save_onnx(g, path);
    Graph back = load_onnx(path);
    ASSERT_EQ(back.nodes.size(), g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      EXPECT_EQ(back.nodes[i].name, g.nodes[i].name);
      EXPECT_EQ(back.nodes[i].inputs, g.nodes[i].inputs);
      EXPECT_EQ(back.nodes[i].outputs, g.nodes[i].outputs);
    }
    ASSERT_EQ(back.initializers.size(), g.initializers.size());
    for (const auto& [n, t] : g.initializers) {
      const Tensor& b = back.initializers.at(n);
      ASSERT_EQ(b.shape(), t.shape()) << n;
      ASSERT_EQ(b.dtype(), t.dtype()) << n;
      EXPECT_EQ(std::memcmp(b.raw(), t.raw(), t.nbytes()), 0) << n;
    }
    EXPECT_EQ(back.metadata, g.metadata);
    EXPECT_EQ(back.outputs[0].shape, g.outputs[0].shape);
    EXPECT_EQ(serialize_onnx(back), serialize_onnx(g));
  }
}

TEST(Zoo, BuildsAreByteIdentical) {
  EXPECT_EQ(serialize_onnx(build_yolo11("yolo11n-pose")),
            serialize_onnx(build_yolo11("yolo11n-pose")));
}

TEST(Zoo, UnknownNameListsTheValidOnes) {
  try {
    build_yolo11("yolo12n");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("yolo12n"), std::string::npos) << msg;
    for (const auto& n : zoo_model_names()) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
}

TEST(Zoo, CliWritesAModelAndRejectsUnknownNames) {
  std::string dir = test::temp_dir("zoo_cli");
  auto ok = test::run_cli("zoo yolo11n-pose -o '" + dir + "/m.onnx'");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  Graph g = load_onnx(dir + "/m.onnx");
  EXPECT_EQ(serialize_onnx(g), serialize_onnx(build_yolo11("yolo11n-pose")));
  auto bad = test::run_cli("zoo yolo11x -o '" + dir + "/x.onnx'");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("valid names: yolo11n, yolo11s, yolo11n-pose, yolo11s-pose"),
            std::string::npos)
      << bad.err;
}

// --imgsz: the same topology and conv weights (the class bias aside) on a smaller input, the
// anchor count of that size ((160/8)^2 + (160/16)^2 + (160/32)^2 = 525), runnable; bad sizes fail.
TEST(Zoo, SmallerImageSizeKeepsTopologyAndWeights) {
  const Graph big = build_yolo11("yolo11n-pose"), small = build_yolo11("yolo11n-pose", 160);
  EXPECT_EQ(small.inputs[0].shape, (std::vector<int64_t>{1, 3, 160, 160}));
  EXPECT_EQ(small.outputs[0].shape, (std::vector<int64_t>{1, 56, 525}));
  EXPECT_EQ(op_histogram(small), op_histogram(big));
  EXPECT_EQ(conv_parameters(small), conv_parameters(big));
  const Tensor& w0 = small.initializers.at("model.0.conv.weight");
  ASSERT_EQ(w0.shape(), big.initializers.at("model.0.conv.weight").shape());
  EXPECT_EQ(std::memcmp(w0.raw(), big.initializers.at("model.0.conv.weight").raw(), w0.nbytes()),
            0);
  EXPECT_NE(small.metadata_value("imgsz"), std::nullopt);
  EXPECT_EQ(*small.metadata_value("imgsz"), "[160, 160]");
  Tensor gray(DType::kFloat32, {1, 3, 160, 160});
  std::fill(gray.data<float>(), gray.data<float>() + gray.numel(), 114.f / 255.f);
  Tensor out = Executor(small).run({{"images", gray}}).at("output0");
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{1, 56, 525}));
  for (int64_t bad : {0, 100, 2048}) {
    try {
      build_yolo11("yolo11n-pose", bad);
      ADD_FAILURE() << "expected an error for " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("multiple of 32"), std::string::npos) << e.what();
    }
  }
}

// Runs every zoo model on a blank gray frame and on two real photos: outputs are finite and
// sensible, hidden activations stay in a realistic range, and only a handful of anchors score above
// 0.25.
TEST(Zoo, ModelsRunWithRealisticActivationsAndFewDetections) {
  std::vector<std::pair<std::string, Tensor>> images;
  Tensor gray(DType::kFloat32, {1, 3, 640, 640});
  std::fill(gray.data<float>(), gray.data<float>() + gray.numel(), 114.f / 255.f);
  images.emplace_back("gray", gray);
  // Two photos: a crowd (val/000000000110) and the first training image.
  std::vector<std::string> paths = list_images(test::coco8_pose_dir() + "/images");
  ASSERT_GE(paths.size(), 5u);
  for (const auto& path : {paths[0], paths[4]})
    images.emplace_back(path, preprocess_image(read_image(path), 640, 640, nullptr));
  for (const auto& name : zoo_model_names()) {
    Graph g = build_yolo11(name);
    const int64_t nc = name.find("pose") != std::string::npos ? 1 : 80;
    Executor ex(g);
    double worst_rms = 0;
    std::string worst_value;
    auto watch = [&](const std::string& v, const Tensor& t) {
      double s2 = 0;
      for (int64_t i = 0; i < t.numel(); ++i) s2 += double(t.data<float>()[i]) * t.data<float>()[i];
      double rms = std::sqrt(s2 / t.numel());
      if (rms > worst_rms) worst_rms = rms, worst_value = v;
    };
    for (const auto& n : g.nodes)  // the output of every C3k2 / C2PSA / SPPF / head branch
      if (n.op_type == "Mul" && n.name.find("/cv2/act/") != std::string::npos)
        ex.add_hook(n.outputs[0], watch);
    for (const auto& [what, x] : images) {
      worst_rms = 0;
      Tensor out = ex.run({{"images", x}}).at("output0");
      const int64_t a = out.dim(2);
      const float* p = out.data<float>();
      for (int64_t i = 0; i < out.numel(); ++i)
        ASSERT_TRUE(std::isfinite(p[i])) << name << " " << what;
      for (int64_t j = 0; j < a; ++j) {
        ASSERT_GT(p[2 * a + j], 0.f) << name << ": box width";  // w, h in pixels
        ASSERT_LT(p[2 * a + j], 2.f * 640) << name << ": box width";
        ASSERT_GT(p[3 * a + j], 0.f) << name << ": box height";
        ASSERT_LT(p[3 * a + j], 2.f * 640) << name << ": box height";
      }
      EXPECT_LT(worst_rms, 4.0) << name << " " << what << ": " << worst_value;
      EXPECT_GT(worst_rms, 0.3) << name << " " << what;
      int above = anchors_above(out, nc, 0.25f);
      EXPECT_LT(above, what == "gray" ? 50 : 150) << name << " on " << what;
    }
  }
}

// The zoo file is a valid model for ONNX Runtime too, and both engines agree on it.
TEST(Zoo, OnnxRuntimeRunsItAndAgrees) {
  EDGEQ_REQUIRE_ORT();
  std::string dir = test::temp_dir("zoo_ort");
  std::string path = dir + "/pose.onnx";
  save_onnx(build_yolo11("yolo11n-pose"), path);
  Tensor x(DType::kFloat32, {1, 3, 640, 640});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = float((i * 2654435761u) % 1000) / 999.f;
  Tensor ours = Executor(load_onnx(path)).run({{"images", x}}).at("output0");
  Tensor ref = test::run_ort(path, {{"images", x}}).at("output0");
  ASSERT_EQ(ours.shape(), ref.shape());
  const int64_t a = ours.dim(2);
  double box = 0, rest = 0;
  for (int64_t r = 0; r < ours.dim(1); ++r)
    for (int64_t j = 0; j < a; ++j) {
      double d = std::fabs(double(ours.data<float>()[r * a + j]) - ref.data<float>()[r * a + j]);
      (r < 4 ? box : rest) = std::max(r < 4 ? box : rest, d);
    }
  EXPECT_LE(box, 0.01);   // pixels
  EXPECT_LE(rest, 0.01);  // scores, keypoint pixels and visibilities
}

}  // namespace
}  // namespace edgeq
