// Task probes through include/edgeq only (edgeq/probe.h): a tiny pooling model on plain bright and
// dark images, prepared (rows matched, folds and models checked), probed with progress, as JSON.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "edgeq/error.h"
#include "edgeq/probe.h"
#include "ir/graph.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

// A 32 x 32 BMP of one colour (24-bit, bottom-up rows of 96 bytes: no padding).
void write_bmp(const std::string& path, uint8_t b, uint8_t g, uint8_t r) {
  const int side = 32;
  const uint32_t pixels = side * side * 3, size = 54 + pixels;
  std::string h(54, '\0');
  auto put = [&](size_t at, uint32_t v, int n) {
    for (int i = 0; i < n; ++i) h[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  h[0] = 'B', h[1] = 'M';
  put(2, size, 4), put(10, 54, 4), put(14, 40, 4), put(18, side, 4), put(22, side, 4);
  put(26, 1, 2), put(28, 24, 2), put(34, pixels, 4);
  std::string body;
  for (int i = 0; i < side * side; ++i) body += {char(b), char(g), char(r)};
  std::ofstream(path, std::ios::binary) << h << body;
}

// images [1,3,32,32] -> GlobalAveragePool -> pooled [1,3,1,1]: three features, the mean colour.
std::string pooling_model(const std::string& dir) {
  Graph g;
  g.inputs = {{"images", DType::kFloat32, {1, 3, 32, 32}}};
  g.outputs = {{"pooled", DType::kFloat32, {1, 3, 1, 1}}};
  Node n;
  n.name = "pool";
  n.op_type = "GlobalAveragePool";
  n.inputs = {"images"};
  n.outputs = {"pooled"};
  g.nodes.push_back(n);
  save_onnx(g, dir + "/pool.onnx");
  return dir + "/pool.onnx";
}

TEST(ProbeApi, FindsBrightnessAndReportsProgress) {
  const std::string d = test::temp_dir("probe_api");
  std::filesystem::create_directories(d + "/img");
  std::string csv = "image,label\n";
  for (int i = 0; i < 8; ++i) {
    const bool bright = i % 2 == 1;
    const uint8_t v = static_cast<uint8_t>(bright ? 200 + i : 30 + i);
    write_bmp(d + "/img/p" + std::to_string(i) + ".bmp", v, v, static_cast<uint8_t>(v / 2));
    csv += "p" + std::to_string(i) + ".bmp," + (bright ? "bright\n" : "dark\n");
  }
  write_bmp(d + "/img/unlabelled.bmp", 90, 90, 90);
  std::ofstream(d + "/labels.csv") << csv;
  const std::string model = pooling_model(d);

  const ProbeSetup s = prepare_probe(model, model, d + "/img", d + "/labels.csv", "auto", 4);
  EXPECT_EQ(s.listed, 9u);
  ASSERT_EQ(s.images.size(), 8u);
  EXPECT_EQ(s.labels.task, ProbeTask::kClassify);

  std::vector<ProgressEvent> events;
  ProbeOptions opt;
  opt.folds = 4;
  const ProbeResult r = probe(s, opt, 1, [&](const ProgressEvent& e) {
    events.push_back(e);
    return true;
  });
  EXPECT_EQ(r.samples, 8u);
  EXPECT_EQ(r.features, 3u);
  EXPECT_EQ(r.classes, 2);
  EXPECT_DOUBLE_EQ(r.chance, 0.5);
  EXPECT_DOUBLE_EQ(r.fp32.score, 1.0);
  ASSERT_TRUE(r.has_quantized);  // the same model: every reading the same
  EXPECT_DOUBLE_EQ(r.frozen.score, r.fp32.score);
  EXPECT_DOUBLE_EQ(r.retrained.score, r.fp32.score);
  ASSERT_EQ(events.size(), 18u);  // per model: the start and one step per image
  EXPECT_EQ(events[0].task, "features of " + model);
  EXPECT_EQ(events[0].done, 0u);
  EXPECT_EQ(events[8].done, 8u);
  EXPECT_EQ(events[8].total, 8u);
  const std::string json = probe_json(r);
  EXPECT_NE(json.find("\"task\": \"classify\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"retrained\""), std::string::npos) << json;

  // false from the callback cancels; too many folds and unknown images are refused up front.
  EXPECT_THROW(probe(s, opt, 1, [](const ProgressEvent& e) { return e.done < 3; }), Cancelled);
  EXPECT_NE(test::error_of([&] {
              prepare_probe(model, "", d + "/img", d + "/labels.csv", "auto", 9);
            }).find("8 labelled images for 9 folds"),
            std::string::npos);
  std::ofstream(d + "/bad.csv") << "image,label\np0.bmp,dark\nmissing.bmp,bright\n";
  EXPECT_NE(test::error_of([&] {
              prepare_probe(model, "", d + "/img", d + "/bad.csv", "auto", 2);
            }).find("missing.bmp"),
            std::string::npos);
}

}  // namespace
}  // namespace edgeq
