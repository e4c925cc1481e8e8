// SiLU values get a grid point at SiLU's minimum (ir/silu.h, quant/activation_encodings.h):
// encoding_with_grid_point against hand-computed cases, the SiLU values found by structure, and
// the mean shift a grid that misses the minimum gives SiLU outputs, against the grid point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/encoding.h"
#include "core/error.h"
#include "encode/quant_plan.h"
#include "graph_builders.h"
#include "ir/silu.h"
#include "quant/activation_encodings.h"
#include "quant/silu_gate.h"

namespace edgeq {
namespace {

using test::node;

TEST(SiluGrid, SiluMinimumByHand) {
  // x * sigmoid(x) at x = -1.2784645: sigmoid = 1 / (1 + e^1.2784645) = 0.2178117.
  EXPECT_NEAR(silu_min(), -0.2784645, 1e-6);
  for (double x = -3; x <= 1; x += 0.001) EXPECT_GE(x / (1 + std::exp(-x)), silu_min() - 1e-9);
}

TEST(SiluGrid, GridPointEncodingByHand) {
  // [-0.25, 1] at 8 bit: zero point floor(255 * 0.25 / 1.25) = 51, scale 0.25 / 51.
  std::optional<Encoding> e = encoding_with_grid_point(-0.25, 1.0, 8);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->zero_point(), 51);
  EXPECT_FLOAT_EQ(e->scale, static_cast<float>(0.25 / 51));
  EXPECT_NEAR(e->dequantize(0), -0.25, 1e-7);
  EXPECT_GE(e->dequantize(255), 1.0 - 1e-6);
  EXPECT_FALSE(e->symmetric);
  // SiLU's minimum and 30: 255 * 0.2785 / 30.2785 = 2.35 -> zero point 2, top (253 steps) 35.2.
  e = encoding_with_grid_point(silu_min(), 30.0, 8);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->zero_point(), 2);
  EXPECT_NEAR(e->dequantize(0), silu_min(), 1e-7);
  EXPECT_GE(e->dequantize(255), 30.0);
  // A step wider than the point: no such encoding.
  EXPECT_FALSE(encoding_with_grid_point(silu_min(), 100.0, 8));
  EXPECT_THROW(encoding_with_grid_point(0.1, 1.0, 8), Error);
}

TEST(SiluGrid, SiluValuesFoundByStructure) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 4, 4}}, {"y", DType::kFloat32, {1, 2, 4, 4}}};
  g.nodes = {node("s1", "Sigmoid", {"x"}, {"sx"}),
             node("m1", "Mul", {"x", "sx"}, {"silu"}),
             node("sp", "Split", {"silu"}, {"a", "b"}),
             node("s2", "Sigmoid", {"y"}, {"sy"}),
             node("m2", "Mul", {"sy", "y"}, {"silu2"}),
             node("cat", "Concat", {"a", "silu2"}, {"both"}),
             node("m3", "Mul", {"x", "sy"}, {"gated"}),  // x * sigmoid(y): not SiLU
             node("cat2", "Concat", {"b", "gated"}, {"mixed"})};
  const std::set<std::string> s = silu_values(g);
  EXPECT_EQ(s, (std::set<std::string>{"silu", "a", "b", "silu2", "both"}));
}

// The mean shift fake-quant gives SiLU outputs of conv outputs ~ N(-1, 2) (a weighted integral
// over x in [-10, 10]), in steps: with the top of the range at 20 or 30, minmax's grid misses the
// minimum and shifts the mean by 0.05-0.06 of a step (hand-computed: 0.058 and 0.046); with the
// grid point on it, a third of that or less.
TEST(SiluGrid, GridPointLowersTheMeanShift) {
  auto mean_shift = [](const Encoding& e) {
    double sum = 0, weight = 0;
    for (double x = -10; x < 10; x += 1e-3) {
      const double w = std::exp(-0.5 * (x + 1) * (x + 1) / 4), y = x / (1 + std::exp(-x));
      sum += w * (e.fake_quant(static_cast<float>(y)) - y);
      weight += w;
    }
    return sum / weight / e.scale;
  };
  for (double hi : {20.0, 30.0}) {
    const Encoding minmax = encoding_from_range(silu_min(), hi, 8, false);
    const std::optional<Encoding> grid = encoding_with_grid_point(silu_min(), hi, 8);
    ASSERT_TRUE(grid);
    std::printf("top %.0f: mean shift minmax %.3f steps, grid point %.3f steps\n", hi,
                mean_shift(minmax), mean_shift(*grid));
    EXPECT_GT(std::fabs(mean_shift(minmax)), 0.04);
    EXPECT_LT(std::fabs(mean_shift(*grid)), 0.6 * std::fabs(mean_shift(minmax)));
  }
}

// Through the quantizer: a Conv's SiLU output gets the grid point; the Conv output, which is not
// a SiLU value, keeps minmax's top (its bottom starts where the gate closes, quant/silu_gate.h).
TEST(SiluGrid, ActivationEncodingsPutTheGridPointOnSiluOutputs) {
  Graph g = test::conv_sigmoid_reshape();
  g.nodes.push_back(node("mul", "Mul", {"c", "s"}, {"silu"}));
  g.outputs = {{"silu", DType::kFloat32, {1, 2, 4, 4}}, {"r", DType::kFloat32, {1, 2, 16}}};
  const Stats stats = test::calibrate(g, "x", test::uniform_inputs(8, 3, -4.0f, 4.0f));
  ASSERT_LE(stats.at("silu").min(), 0.5 * silu_min());
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  const QuantPlan plan =
      plan_quantization(g, c, [&](const std::string& v) { return stats.values.count(v) != 0; });
  const auto enc = activation_encodings(g, plan, stats, c);
  const Encoding& silu = enc.at("silu").channels.at(0);
  EXPECT_NEAR(silu.dequantize(0), silu_min(), 1e-7) << silu.describe();
  EXPECT_GE(silu.dequantize(255), stats.at("silu").max() - 1e-6);
  const Encoding& conv = enc.at("c").channels.at(0);
  const double floor = *gate_closed_below(enc.at("s"));
  const Encoding want = encoding_from_range(std::max(double(stats.at("c").min()), floor),
                                            stats.at("c").max(), 8, false);
  EXPECT_EQ(conv.scale, want.scale);
  EXPECT_EQ(conv.offset, want.offset);
}

}  // namespace
}  // namespace edgeq
