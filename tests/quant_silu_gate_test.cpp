// SiLU inputs start their range where the quantized gate closes (quant/silu_gate.h): the bound
// against hand-computed cases, the gated inputs found by structure, the encoding through the
// quantizer, the quantized SiLU with it against minmax's encoding, and truncation, which must not
// count what no gate lets through.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/truncation.h"
#include "core/encoding.h"
#include "encode/quant_plan.h"
#include "graph_builders.h"
#include "ir/silu.h"
#include "quant/activation_encodings.h"
#include "quant/silu_gate.h"

namespace edgeq {
namespace {

using test::node;

float sigmoid(double x) {
  return static_cast<float>(1.0 / (1.0 + std::exp(-x)));
}

TEST(SiluGate, ClosedBelowByHand) {
  // uint8 [0, 1]: scale 1/255; a quarter step is 1/1020, whose logit is -ln(1019) = -6.92658.
  const Encoding u8 = encoding_from_range(0, 1, 8, false);
  std::optional<double> b = gate_closed_below(TensorEncoding::per_tensor(u8));
  ASSERT_TRUE(b);
  EXPECT_NEAR(*b, -6.926577, 1e-5);
  EXPECT_EQ(u8.fake_quant(sigmoid(*b)), 0.0f);
  // Rounding opens the gate at half a step (1/510 = 0.001961): sigmoid(-6.2) = 0.002025.
  EXPECT_GT(u8.fake_quant(sigmoid(-6.2)), 0.0f);
  // uint16 [0, 1]: -ln(4 * 65535 - 1) = -12.47663.
  b = gate_closed_below(TensorEncoding::per_tensor(encoding_from_range(0, 1, 16, false)));
  ASSERT_TRUE(b);
  EXPECT_NEAR(*b, -12.47663, 1e-4);
  EXPECT_FALSE(gate_closed_below(TensorEncoding::floating(32)));
}

TEST(SiluGate, GatedInputsFoundByStructure) {
  Graph g;
  for (const char* x : {"x1", "x2", "x3", "x4", "x5", "z"})
    g.inputs.push_back({x, DType::kFloat32, {1, 2, 4, 4}});
  g.nodes = {node("s1", "Sigmoid", {"x1"}, {"g1"}), node("m1", "Mul", {"x1", "g1"}, {"y1"}),
             // x2 is read by a Relu too: its values below the gate are seen there.
             node("s2", "Sigmoid", {"x2"}, {"g2"}), node("m2", "Mul", {"x2", "g2"}, {"y2"}),
             node("r2", "Relu", {"x2"}, {"y2r"}),
             // x3 is a graph output.
             node("s3", "Sigmoid", {"x3"}, {"g3"}), node("m3", "Mul", {"x3", "g3"}, {"y3"}),
             // x4 * sigmoid(z) is not a SiLU.
             node("s4", "Sigmoid", {"z"}, {"g4"}), node("m4", "Mul", {"x4", "g4"}, {"y4"}),
             // The gate first.
             node("s5", "Sigmoid", {"x5"}, {"g5"}), node("m5", "Mul", {"g5", "x5"}, {"y5"})};
  for (const char* y : {"y1", "y2", "y2r", "y3", "x3", "y4", "y5"})
    g.outputs.push_back({y, DType::kFloat32, {1, 2, 4, 4}});
  EXPECT_EQ(silu_gates(g), (std::map<std::string, std::string>{{"x1", "g1"}, {"x5", "g5"}}));
}

struct GatedConv {
  Graph g = test::conv_sigmoid_reshape();  // conv -> c -> Sigmoid -> s -> Reshape
  Stats stats;
  std::map<std::string, TensorEncoding> enc;
  GatedConv() {
    g.nodes.push_back(node("mul", "Mul", {"c", "s"}, {"silu"}));
    g.outputs = {{"silu", DType::kFloat32, {1, 2, 4, 4}}, {"r", DType::kFloat32, {1, 2, 16}}};
    stats = test::calibrate(g, "x", test::uniform_inputs(8, 3, -12.0f, 4.0f));
    QuantConfig c = config_for_scheme(Scheme::kW8A8);
    const QuantPlan plan =
        plan_quantization(g, c, [&](const std::string& v) { return stats.values.count(v) != 0; });
    enc = activation_encodings(g, plan, stats, c);
  }
  const Encoding& at(const std::string& v) const { return enc.at(v).channels.at(0); }
};

TEST(SiluGate, ConvOutputStartsWhereItsGateCloses) {
  GatedConv m;
  const Histogram& c = m.stats.at("c");
  ASSERT_LT(c.min(), -20.0);  // channel 1 is 2 x0 + 0.25 x1 - 0.3 on inputs in [-12, 4]
  const double floor = *gate_closed_below(m.enc.at("s"));
  const Encoding& e = m.at("c");
  EXPECT_NEAR(e.min, floor, e.scale) << e.describe();
  EXPECT_GE(e.max, c.max() - 0.5 * e.scale - 1e-5);  // the zero point rounds
  const Encoding minmax = encoding_from_range(c.min(), c.max(), 8, false);
  EXPECT_LT(e.scale, minmax.scale * (c.max() - floor) / (c.max() - c.min()) + 1e-6);
  EXPECT_EQ(m.at("s").fake_quant(sigmoid(e.min)), 0.0f);
}

// SiLU as ONNX Runtime's QDQ rules run it (Conv output, Sigmoid output and Mul output each on
// their grid): 0 wherever the gate is closed with either encoding of the Conv output, and closer
// to SiLU above with the range that starts there.
TEST(SiluGate, QuantizedSiluUnchangedBelowAndFinerAbove) {
  GatedConv m;
  const Histogram& c = m.stats.at("c");
  const Encoding &gate = m.at("s"), &out = m.at("silu"), &clipped = m.at("c");
  const Encoding minmax = encoding_from_range(c.min(), c.max(), 8, false);
  auto qsilu = [&](const Encoding& xe, double x) {
    const float xq = xe.fake_quant(static_cast<float>(x));
    return out.fake_quant(xq * gate.fake_quant(sigmoid(xq)));
  };
  const double floor = *gate_closed_below(m.enc.at("s"));
  double err_clipped = 0, err_minmax = 0;
  int n = 0;
  for (double x = c.min(); x <= c.max(); x += 1e-3) {
    if (x < floor) {
      EXPECT_EQ(qsilu(clipped, x), 0.0f) << x;
      EXPECT_EQ(qsilu(minmax, x), 0.0f) << x;
      continue;
    }
    const double y = x * sigmoid(x);
    err_clipped += std::fabs(qsilu(clipped, x) - y);
    err_minmax += std::fabs(qsilu(minmax, x) - y);
    ++n;
  }
  std::printf("mean |quantized SiLU - SiLU| above the gate: minmax %.5f, from the gate %.5f\n",
              err_minmax / n, err_clipped / n);
  EXPECT_LT(err_clipped, 0.8 * err_minmax);
}

TEST(SiluGate, TruncationDoesNotCountWhatNoGateLetsThrough) {
  GatedConv m;
  const std::map<std::string, double> floors = silu_gate_floors(m.g, m.enc);
  ASSERT_EQ(floors.size(), 1u);
  ASSERT_TRUE(floors.count("c"));
  auto on_c = [](const std::vector<Finding>& f) {
    int n = 0;
    for (const Finding& x : f) n += x.kind == "truncation" && x.value == "c";
    return n;
  };
  EXPECT_EQ(on_c(truncation_findings(m.enc, m.stats, {}, 640)), 1);  // without the gates: clipped
  EXPECT_EQ(on_c(truncation_findings(m.enc, m.stats, {}, 640, floors)), 0);
  // A top that does not cover the observed max still is truncation.
  std::map<std::string, TensorEncoding> low_top = m.enc;
  low_top["c"] = TensorEncoding::per_tensor(
      encoding_from_range(m.at("c").min, 0.5 * m.stats.at("c").max(), 8, false));
  EXPECT_EQ(on_c(truncation_findings(low_top, m.stats, {}, 640, floors)), 1);
}

}  // namespace
}  // namespace edgeq
