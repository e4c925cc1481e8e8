// edgeq inspect: parameters, FLOPs and module kinds against hand counts, Ultralytics' published
// numbers and its per-layer table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/model_summary.h"
#include "cli_util.h"
#include "core/file_io.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

using test::ints_attr;
using test::node;

const LayerSummary& layer(const ModelSummary& s, int index) {
  for (const auto& l : s.layers)
    if (l.index == index) return l;
  throw std::runtime_error("no layer " + std::to_string(index));
}

// A small graph whose counts are easy by hand: a Conv module, an upsample, a MatMul module and
// a Gemm outside any module. Shapes are given directly, not planned.
TEST(Inspect, HandBuiltGraphCountsByHand) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 3, 32, 32}}, {"a", DType::kFloat32, {4, 10}}};
  g.initializers["w"] = Tensor(DType::kFloat32, {8, 3, 3, 3});
  g.initializers["b"] = Tensor(DType::kFloat32, {8});
  g.initializers["scales"] = Tensor::from_vector<float>({4}, {1, 1, 2, 2});
  g.initializers["m"] = Tensor(DType::kFloat32, {32, 5});
  g.initializers["gw"] = Tensor(DType::kFloat32, {10, 6});
  g.initializers["gb"] = Tensor(DType::kFloat32, {6});
  Node conv = node("/model.0/conv/Conv", "Conv", {"x", "w", "b"}, {"c"});
  conv.attrs = {{"strides", ints_attr({2, 2})}, {"pads", ints_attr({1, 1, 1, 1})}};
  g.nodes = {conv,
             node("/model.0/act/Sigmoid", "Sigmoid", {"c"}, {"s"}),
             node("/model.0/act/Mul", "Mul", {"c", "s"}, {"y0"}),
             node("/model.1/Resize", "Resize", {"y0", "", "scales"}, {"y1"}),
             node("/model.2/MatMul", "MatMul", {"y1", "m"}, {"y2"}),
             node("/head/Gemm", "Gemm", {"a", "gw", "gb"}, {"z"})};
  g.outputs = {{"y2", DType::kFloat32, {}}, {"z", DType::kFloat32, {}}};
  std::map<std::string, Shape> shapes = {
      {"x", {1, 3, 32, 32}},  {"a", {4, 10}},         {"c", {1, 8, 16, 16}}, {"s", {1, 8, 16, 16}},
      {"y0", {1, 8, 16, 16}}, {"y1", {1, 8, 32, 32}}, {"y2", {1, 8, 32, 5}}, {"z", {4, 6}}};
  ModelSummary s = summarize_model(g, [&](const std::string& v) {
    return g.is_initializer(v) ? g.initializers.at(v).shape() : shapes.at(v);
  });

  const LayerSummary& l0 = layer(s, 0);
  EXPECT_EQ(l0.kind, "Conv");
  EXPECT_EQ(l0.params, 8 * 3 * 3 * 3 + 8);
  EXPECT_EQ(l0.flops, 2 * (8 * 16 * 16) * (3 * 3 * 3));  // 110,592
  EXPECT_EQ(l0.elementwise_ops, 2 * 8 * 16 * 16);        // Sigmoid + Mul
  EXPECT_EQ(l0.output, "y0");
  EXPECT_EQ(l0.output_shape, (Shape{1, 8, 16, 16}));
  const LayerSummary& l1 = layer(s, 1);
  EXPECT_EQ(l1.kind, "Upsample");
  EXPECT_EQ(l1.flops + l1.params + l1.elementwise_ops, 0);
  const LayerSummary& l2 = layer(s, 2);
  EXPECT_EQ(l2.params, 32 * 5);
  EXPECT_EQ(l2.flops, 2 * (8 * 32 * 5) * 32);  // 81,920
  const LayerSummary& outside = layer(s, -1);
  EXPECT_EQ(outside.params, 10 * 6 + 6);
  EXPECT_EQ(outside.flops, 2 * (4 * 6) * 10);
  EXPECT_EQ(s.layers.back().index, -1);

  EXPECT_EQ(s.params, 224 + 160 + 66);
  EXPECT_EQ(s.flops, 110592 + 81920 + 480);
  EXPECT_EQ(s.input_bytes, (3 * 32 * 32 + 40) * 4);
  EXPECT_EQ(s.output_bytes, (8 * 32 * 5 + 24) * 4);
  // No Detect module: the last module is the head, and the neck is empty.
  ASSERT_EQ(s.parts.size(), 4u);
  EXPECT_EQ(s.parts[0].range, "0-1");
  EXPECT_EQ(s.parts[0].flops, 110592);
  EXPECT_EQ(s.parts[1].range, "none");
  EXPECT_EQ(s.parts[2].range, "2");
  EXPECT_EQ(s.parts[2].params, 160);
  EXPECT_EQ(s.parts[3].name, "other");
  EXPECT_EQ(s.parts[3].flops, 480);
}

// yolo11-pose.yaml, module by module.
const std::vector<std::string> kYolo11PoseKinds = {
    "Conv", "Conv", "C3k2",   "Conv",     "C3k2",   "Conv",   "C3k2",     "Conv",
    "C3k2", "SPPF", "C2PSA",  "Upsample", "Concat", "C3k2",   "Upsample", "Concat",
    "C3k2", "Conv", "Concat", "C3k2",     "Conv",   "Concat", "C3k2",     "Pose"};

TEST(Inspect, RealModelAgreesWithPublishedNumbers) {
  EDGEQ_REQUIRE_REAL_DATA();
  ModelSummary s = summarize_model(load_onnx(test::real_model_path()));
  // Ultralytics: YOLO11n-pose has 2.9 M parameters (2,866,468 fused) and 7.6 GFLOPs at 640.
  EXPECT_EQ(s.params, 2866468);
  EXPECT_NEAR(s.params, 2.9e6, 0.02 * 2.9e6);
  EXPECT_NEAR(s.flops, 7.6e9, 0.02 * 7.6e9);
  ASSERT_EQ(s.layers.size(), kYolo11PoseKinds.size());
  for (size_t i = 0; i < s.layers.size(); ++i) {
    EXPECT_EQ(s.layers[i].index, static_cast<int>(i));
    EXPECT_EQ(s.layers[i].kind, kYolo11PoseKinds[i]) << "layer " << i;
  }
  EXPECT_EQ(s.layers[16].output_shape, (Shape{1, 64, 80, 80}));   // P3
  EXPECT_EQ(s.layers[19].output_shape, (Shape{1, 128, 40, 40}));  // P4
  EXPECT_EQ(s.layers[22].output_shape, (Shape{1, 256, 20, 20}));  // P5
  EXPECT_EQ(s.layers[23].output, "output0");
  EXPECT_EQ(s.layers[23].output_shape, (Shape{1, 56, 8400}));
  EXPECT_EQ(s.input_bytes, 1 * 3 * 640 * 640 * 4);
  EXPECT_EQ(s.output_bytes, 1 * 56 * 8400 * 4);
  ASSERT_EQ(s.parts.size(), 3u);
  EXPECT_EQ(s.parts[0].range, "0-10");
  EXPECT_EQ(s.parts[1].range, "11-22");
  EXPECT_EQ(s.parts[2].range, "23");
  EXPECT_EQ(s.parts[0].params + s.parts[1].params + s.parts[2].params, s.params);
  EXPECT_EQ(s.parts[0].flops + s.parts[1].flops + s.parts[2].flops, s.flops);
  EXPECT_EQ(s.op_histogram.at("Conv"), 97);
  EXPECT_EQ(s.nodes, 354);
}

// Ultralytics prints, for YOLO11n-pose (nc=1) before fusing, layer params 0: 464, 16: 32,096,
// 17: 36,992, 19: 86,720, 20: 147,712, 22: 378,880, 23 (Pose): 715,294. Fusing replaces each
// BatchNorm's 2 parameters per channel with 1 conv bias: minus one per BN channel, i.e. minus
// 16; 64+16+32+64; 64; 128+32+64+128; 128; 256+64+64+3*64+64+128+256 (C3k: cv1, cv2, two
// bottlenecks, cv3); and 3*(64+64) box + (64+64+64+64)+(128+64+64+64)+(256+64+64+64) class +
// 3*(51+51) keypoint branch channels.
TEST(Inspect, ZooPoseLayersMatchUltralyticsTable) {
  ModelSummary s = summarize_model(build_yolo11("yolo11n-pose"));
  EXPECT_EQ(layer(s, 0).params, 464 - 16);
  EXPECT_EQ(layer(s, 16).params, 32096 - (64 + 16 + 32 + 64));
  EXPECT_EQ(layer(s, 17).params, 36992 - 64);
  EXPECT_EQ(layer(s, 19).params, 86720 - (128 + 32 + 64 + 128));
  EXPECT_EQ(layer(s, 20).params, 147712 - 128);
  EXPECT_EQ(layer(s, 22).params, 378880 - (256 + 64 + 64 + 3 * 64 + 64 + 128 + 256));
  EXPECT_EQ(layer(s, 23).params, 715294 - (3 * 128 + 256 + 320 + 448 + 3 * 102));
  for (size_t i = 0; i < s.layers.size(); ++i) EXPECT_EQ(s.layers[i].kind, kYolo11PoseKinds[i]);
}

// Ultralytics' published GFLOPs at 640: YOLO11n 6.5, YOLO11s 21.5, YOLO11s-pose 23.2.
TEST(Inspect, ZooModelsAgreeWithPublishedFlops) {
  struct Case {
    const char* name;
    double gflops;
    int64_t params;
  };
  for (const Case& c : {Case{"yolo11n", 6.5, 2616248}, Case{"yolo11s", 21.5, 9443760},
                        Case{"yolo11s-pose", 23.2, 9902940}}) {
    ModelSummary s = summarize_model(build_yolo11(c.name));
    EXPECT_NEAR(s.flops / 1e9, c.gflops, 0.02 * c.gflops) << c.name;
    EXPECT_EQ(s.params, c.params) << c.name;
    EXPECT_EQ(s.layers.back().kind,
              std::string(c.name).find("pose") != std::string::npos ? "Pose" : "Detect");
  }
}

// A QDQ model is described by its float view: the int8 weight counts as the parameters it
// stands for, and the Q/DQ nodes are reported apart.
TEST(Inspect, QdqModelCountsQuantizedWeights) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 4, 8, 8}}};
  g.initializers["wq"] = Tensor(DType::kInt8, {6, 4, 1, 1});
  g.initializers["ws"] = Tensor::scalar<float>(0.01f);
  g.initializers["b"] = Tensor(DType::kFloat32, {6});
  g.initializers["xs"] = Tensor::scalar<float>(0.02f);
  g.initializers["xz"] = Tensor::scalar<int8_t>(0);
  g.nodes = {node("/model.0/QuantizeLinear", "QuantizeLinear", {"x", "xs", "xz"}, {"xq"}),
             node("/model.0/DequantizeLinear", "DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}),
             node("/model.0/DequantizeLinear_1", "DequantizeLinear", {"wq", "ws"}, {"wd"}),
             node("/model.0/conv/Conv", "Conv", {"xd", "wd", "b"}, {"y"})};
  g.outputs = {{"y", DType::kFloat32, {1, 6, 8, 8}}};
  ModelSummary s = summarize_model(g);
  EXPECT_EQ(s.qdq_nodes, 3);
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.op_histogram.at("DequantizeLinear"), 2);
  EXPECT_EQ(s.params, 6 * 4 + 6);
  EXPECT_EQ(s.flops, 2 * (6 * 8 * 8) * 4);
}

TEST(Inspect, CliPrintsTableAndWritesJson) {
  std::string dir = test::temp_dir("inspect");
  save_onnx(build_yolo11("yolo11n-pose"), dir + "/m.onnx");
  auto r = test::run_cli("inspect --model '" + dir + "/m.onnx' --json '" + dir + "/s.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("C2PSA"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2,866,468 parameters"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_file(dir + "/s.json"));
  EXPECT_EQ(j["totals"]["params"], 2866468);
  ASSERT_EQ(j["layers"].size(), 24u);
  EXPECT_EQ(j["layers"][10]["kind"], "C2PSA");
  EXPECT_EQ(j["layers"][23]["output_shape"], nlohmann::json({1, 56, 8400}));
  EXPECT_EQ(j["parts"][0]["name"], "backbone");
  EXPECT_EQ(j["bytes_per_frame"]["input"], 1 * 3 * 640 * 640 * 4);
  EXPECT_EQ(j["outputs"][0]["name"], "output0");

  auto bad = test::run_cli("inspect --model '" + dir + "/missing.onnx'");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("missing.onnx"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace edgeq
