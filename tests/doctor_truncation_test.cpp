// Truncation math on hand-made data (clipped mass counted directly from the values), and the
// YOLO box decode found by structure with its pin pixel (encoding max x stride).
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/truncation.h"
#include "core/error.h"
#include "graph_builders.h"
#include "ir/head_decode.h"

namespace edgeq {
namespace {

using test::int_attr;
using test::node;

// 0, 0.01, ..., 20: 2001 values.
std::vector<float> ramp_to_20() {
  std::vector<float> v;
  for (int i = 0; i <= 2000; ++i) v.push_back(static_cast<float>(i * 0.01));
  return v;
}

Stats stats_of(const std::string& name, const std::vector<float>& v) {
  Stats s;
  s.observe(name, Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v));
  return s;
}

// dist [1,4,N] -> Split -> (lt, rb); x1y1 = anchors - lt; x2y2 = anchors + rb; centre =
// (x1y1 + x2y2) / 2; size = x2y2 - x1y1; Concat(centre, size) -> grid; grid * strides -> boxes.
// Names carry arbitrary suffixes: the decode must be found by structure.
Graph decode_graph(int64_t n_anchors) {
  Graph g;
  g.inputs = {{"dist", DType::kFloat32, {1, 4, n_anchors}}};
  g.outputs = {{"boxes", DType::kFloat32, {1, 4, n_anchors}}};
  std::vector<float> anchors(2 * n_anchors, 0.5f), strides(n_anchors);
  for (int64_t i = 0; i < n_anchors; ++i) strides[i] = i < n_anchors / 2 ? 8.0f : 16.0f;
  g.initializers["anc_x7"] = Tensor::from_vector<float>({1, 2, n_anchors}, anchors);
  g.initializers["str_x9"] = Tensor::from_vector<float>({1, n_anchors}, strides);
  g.initializers["two_q"] = Tensor::scalar<float>(2.0f);
  g.initializers["split_q"] = Tensor::from_vector<int64_t>({2}, {2, 2});
  Node split = node("/m.23/Split_41", "Split", {"dist", "split_q"}, {"lt", "rb"});
  split.attrs["axis"] = int_attr(1);
  g.nodes.push_back(split);
  g.nodes.push_back(node("/m.23/Sub_7", "Sub", {"anc_x7", "lt"}, {"x1y1"}));
  g.nodes.push_back(node("/m.23/Add_3", "Add", {"anc_x7", "rb"}, {"x2y2"}));
  g.nodes.push_back(node("/m.23/Add_4", "Add", {"x1y1", "x2y2"}, {"sum"}));
  g.nodes.push_back(node("/m.23/Div_99", "Div", {"sum", "two_q"}, {"centre_v"}));
  g.nodes.push_back(node("/m.23/Sub_8", "Sub", {"x2y2", "x1y1"}, {"size_v"}));
  Node cat = node("/m.23/Concat_12", "Concat", {"centre_v", "size_v"}, {"grid_v"});
  cat.attrs["axis"] = int_attr(1);
  g.nodes.push_back(cat);
  g.nodes.push_back(node("/m.23/Mul_5", "Mul", {"grid_v", "str_x9"}, {"boxes"}));
  return g;
}

TEST(DoctorTruncation, ClippedMassOfEncodingZeroToTenOverDataToTwenty) {
  std::vector<float> v = ramp_to_20();
  Stats s = stats_of("x", v);
  Encoding e = encoding_from_range(0.0, 10.0, 8, false);
  // Reference: values that saturate, counted directly (beyond max + half a step).
  double edge = e.max + 0.5 * e.scale;
  int above = 0;
  for (float x : v) above += x > edge;
  EXPECT_EQ(above, 999);  // 10.02 (> 10.0196) .. 20.00
  Clipping c = clipping(e, s.at("x"));
  EXPECT_NEAR(c.above, above, 2.0);
  EXPECT_EQ(c.below, 0.0);
  EXPECT_NEAR(c.fraction, 999.0 / 2001.0, 2.0 / 2001.0);
  EXPECT_NEAR(c.over_hi, 10.0, 1e-4);

  auto f = truncation_findings({{"x", TensorEncoding::per_tensor(e)}}, s, {}, 640);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "truncation");
  EXPECT_EQ(f[0].value, "x");
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_NEAR(f[0].numbers.at("clipped_fraction"), 999.0 / 2001.0, 2.0 / 2001.0);
  EXPECT_EQ(f[0].numbers.count("pin_px"), 0u);  // no pixel meaning
}

TEST(DoctorTruncation, RoundingIsNotTruncation) {
  Stats s = stats_of("x", ramp_to_20());
  // Covers the data: nothing.
  EXPECT_TRUE(
      truncation_findings(
          {{"x", TensorEncoding::per_tensor(encoding_from_range(0, 20.0, 8, false))}}, s, {}, 640)
          .empty());
  // Short of the max by less than one step (20 / 255 = 0.078): rounding, nothing.
  EXPECT_TRUE(
      truncation_findings(
          {{"x", TensorEncoding::per_tensor(encoding_from_range(0, 19.95, 8, false))}}, s, {}, 640)
          .empty());
  // Short by 0.1 (1.3 steps, 0.5% of the range): 19.94 .. 20.00, 7 of 2001 values: a warning.
  auto f = truncation_findings(
      {{"x", TensorEncoding::per_tensor(encoding_from_range(0, 19.9, 8, false))}}, s, {}, 640);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NEAR(f[0].numbers.at("clipped_fraction"), 7.0 / 2001.0, 1.5 / 2001.0);
  // 16 bit short by 0.01: 33 steps, but 0.05% of the range and one value (20.00): info.
  f = truncation_findings(
      {{"x", TensorEncoding::per_tensor(encoding_from_range(0, 19.99, 16, false))}}, s, {}, 640);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_NEAR(f[0].numbers.at("clipped_fraction"), 1.0 / 2001.0, 1.0 / 2001.0);
}

TEST(DoctorTruncation, PixelPinsOutsideTheInputAreWarnings) {
  // Pixel-space boxes observed in [-30, 600] under [0, 700]: the low side pins at 0 px, at the
  // image border, not inside it.
  Graph g = decode_graph(10);
  std::vector<float> v;
  for (int i = -30; i <= 600; ++i) v.push_back(static_cast<float>(i));
  auto f = truncation_findings(
      {{"boxes", TensorEncoding::per_tensor(encoding_from_range(0, 700, 16, false))}},
      stats_of("boxes", v), pixel_meanings(g), 640);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].message.find("low side 0.0 px (outside the input)"), std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].numbers.at("clip_px"), 0);
}

TEST(DoctorTruncation, BoxDecodeFoundByStructure) {
  Graph g = decode_graph(10);
  auto b = find_box_decode(g);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->concat, "grid_v");
  EXPECT_EQ(b->concat_node, "/m.23/Concat_12");
  EXPECT_EQ(b->centre, "centre_v");
  EXPECT_EQ(b->size, "size_v");
  EXPECT_EQ(b->to_pixels.pixels, "boxes");
  EXPECT_EQ(b->to_pixels.strides, (std::vector<int>{8, 16}));
  auto px = pixel_meanings(g);
  for (const char* v : {"grid_v", "centre_v", "size_v"}) {
    ASSERT_TRUE(px.count(v)) << v;
    EXPECT_TRUE(px.at(v).grid) << v;
  }
  ASSERT_TRUE(px.count("boxes"));
  EXPECT_FALSE(px.at("boxes").grid);
  EXPECT_FALSE(px.count("sum"));  // (x1y1 + x2y2) is twice the centre: no direct pixel meaning

  // Without the Div by 2 it is not the box decode.
  Graph h = g;
  h.initializers["two_q"] = Tensor::scalar<float>(3.0f);
  EXPECT_FALSE(find_box_decode(h).has_value());
}

TEST(DoctorTruncation, PinPixelOfTheVendorEncoding) {
  Graph g = decode_graph(10);
  auto px = pixel_meanings(g);
  std::vector<float> grid;  // centres 0 .. 81 grid units
  for (int i = 0; i <= 810; ++i) grid.push_back(i * 0.1f);
  Stats s = stats_of("grid_v", grid);
  Encoding vendor = encoding_from_range(-0.59, 40.69, 16, false);
  auto f = truncation_findings({{"grid_v", TensorEncoding::per_tensor(vendor)}}, s, px, 640);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  // 40.69 grid units x stride 8 = 325.52 px; x 16 = 651 px lies beyond the 640 px input.
  EXPECT_NEAR(f[0].numbers.at("pin_px"), 40.69 * 8, 0.05);
  EXPECT_EQ(f[0].numbers.at("pin_stride"), 8);
  EXPECT_NE(f[0].message.find("stride 8 = 325.5 px"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].message.find("stride 16"), std::string::npos) << f[0].message;
  // Values above 40.69 + half a step: 41.0 .. 81.0, 404 of 811.
  EXPECT_NEAR(f[0].numbers.at("clipped_fraction"), 404.0 / 811.0, 2.0 / 811.0);

  Encoding fixed = encoding_from_range(-0.6, 80.6, 16, false);
  grid.resize(806);  // up to 80.5
  EXPECT_TRUE(truncation_findings({{"grid_v", TensorEncoding::per_tensor(fixed)}},
                                  stats_of("grid_v", grid), px, 640)
                  .empty());
}

}  // namespace
}  // namespace edgeq
