// Weight repair on hand-built convs with hand-computed expectations: the input moments (im2col
// columns: padding taps 0, strides, groups), bias correction, GPTQ rounding (better than nearest
// where it provably is, exact weights left alone, bit-identical for any thread count) and
// cross-layer equalization (pairs found by structure, ranges balanced, the float function kept).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "encode/exact_encoding.h"
#include "encode/qdq_export.h"
#include "graph_builders.h"
#include "quant/activation_encodings.h"
#include "repair/bias_correction.h"
#include "repair/cle.h"
#include "repair/conv_input_moments.h"
#include "repair/conv_input_pass.h"
#include "repair/gptq.h"
#include "repair/weight_repair.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

using test::int_attr;
using test::ints_attr;
using test::node;

Node conv_node(const std::string& name, const std::string& x, const std::string& w,
               const std::string& b, const std::string& y, int64_t pad, int64_t stride = 1,
               int64_t group = 1) {
  Node n = node(name, "Conv", {x, w, b}, {y});
  if (b.empty()) n.inputs.pop_back();
  n.attrs["pads"] = ints_attr({pad, pad, pad, pad});
  n.attrs["strides"] = ints_attr({stride, stride});
  if (group != 1) n.attrs["group"] = int_attr(group);
  return n;
}

ConvInputMoments moments_of(const Node& conv, const Shape& w, const std::vector<Tensor>& xs,
                            bool gram, int threads = 1) {
  ConvInputAccumulator acc(conv_geometry(conv, xs.at(0).shape(), w), gram);
  for (const Tensor& x : xs) acc.add(x, threads);
  return acc.take();
}

// ---- input moments -------------------------------------------------------------------------

TEST(ConvInputMoments, SumsColumnsAndTheirGram) {
  Node c = conv_node("c", "x", "w", "", "y", 0);
  // Image 1: columns (1, 3) and (2, 4); image 2: (0, 1) and (1, 0).
  std::vector<Tensor> xs = {Tensor::from_vector<float>({1, 2, 1, 2}, {1, 2, 3, 4}),
                            Tensor::from_vector<float>({1, 2, 1, 2}, {0, 1, 1, 0})};
  ConvInputMoments m = moments_of(c, {3, 2, 1, 1}, xs, true);
  ASSERT_EQ(m.k, 2);
  EXPECT_EQ(m.columns, 4u);
  EXPECT_EQ(m.sum, (std::vector<double>{4, 8}));
  // 1*1 + 2*2 + 0 + 1 = 6; 1*3 + 2*4 + 0 + 0 = 11; 9 + 16 + 1 + 0 = 26.
  EXPECT_EQ(m.gram, (std::vector<double>{6, 11, 11, 26}));
  EXPECT_EQ(m.mean(0), (std::vector<double>{1, 2}));
}

TEST(ConvInputMoments, PaddingTapsCountAsZero) {
  // 3x3, pad 1, on a 2x2 image of ones: the centre tap always reads the image, an edge tap half
  // of the four positions, a corner tap one.
  Node c = conv_node("c", "x", "w", "", "y", 1);
  ConvInputMoments m =
      moments_of(c, {1, 1, 3, 3}, {Tensor::from_vector<float>({1, 1, 2, 2}, {1, 1, 1, 1})}, false);
  EXPECT_EQ(m.columns, 4u);
  EXPECT_EQ(m.mean(0), (std::vector<double>{0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25}));
  EXPECT_FALSE(m.has_gram());
}

TEST(ConvInputMoments, StridesSeeOnlyTheirPositions) {
  // 1x1 stride 2 on 3x3: positions (0,0), (0,2), (2,0), (2,2). The 9 at (0,0) averages to 9/4,
  // where the channel's spatial mean would be 1.
  Node c = conv_node("c", "x", "w", "", "y", 0, 2);
  std::vector<float> x(9, 0.0f);
  x[0] = 9;
  ConvInputMoments m =
      moments_of(c, {1, 1, 1, 1}, {Tensor::from_vector<float>({1, 1, 3, 3}, x)}, false);
  EXPECT_EQ(m.columns, 4u);
  EXPECT_EQ(m.mean(0), (std::vector<double>{2.25}));
}

TEST(ConvInputMoments, DepthwiseGroupsKeepTheirOwnChannel) {
  Node c = conv_node("c", "x", "w", "", "y", 0, 1, 2);
  ConvInputMoments m =
      moments_of(c, {2, 1, 1, 1}, {Tensor::from_vector<float>({1, 2, 1, 2}, {1, 3, 10, 20})}, true);
  ASSERT_EQ(m.groups, 2);
  ASSERT_EQ(m.k, 1);
  EXPECT_EQ(m.mean(0), (std::vector<double>{2}));
  EXPECT_EQ(m.mean(1), (std::vector<double>{15}));
  EXPECT_EQ(m.gram, (std::vector<double>{10, 500}));
}

// ---- bias correction -----------------------------------------------------------------------

// x [1,2,2,2] -> Conv 1x1 (w [2,2,1,1], b) -> y.
Graph one_by_one_conv(const std::vector<float>& w, const std::vector<float>& b) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 2, 2}}};
  g.outputs = {{"y", DType::kFloat32, {1, 2, 2, 2}}};
  g.initializers["w"] = Tensor::from_vector<float>({2, 2, 1, 1}, w);
  if (!b.empty()) g.initializers["b"] = Tensor::from_vector<float>({2}, b);
  g.nodes.push_back(conv_node("conv", "x", "w", b.empty() ? "" : "b", "y", 0));
  return g;
}

QuantPlan plan_all(const Graph& g) {
  return plan_quantization(g, QuantConfig(), [](const std::string&) { return true; });
}

TEST(BiasCorrection, HandComputedOneByOneConv) {
  // Per-channel max-abs int8 grids: row 0 step 1.27/127 = 0.01, 0.504 -> 0.50 (error -0.004);
  // row 1 step 2.54/127 = 0.02, -0.626 -> -0.62 (error +0.006). Input channel means 2 and -1
  // (two images of constant planes: 1 and 3, -2 and 0). Shifts: row 0 (-0.004)(-1) = 0.004,
  // row 1 (0.006)(2) = 0.012; corrected biases 0.1 - 0.004 and -0.2 - 0.012.
  Graph g = one_by_one_conv({1.27f, 0.504f, -0.626f, 2.54f}, {0.1f, -0.2f});
  auto plane = [](float a, float b) {
    return Tensor::from_vector<float>({1, 2, 2, 2}, {a, a, a, a, b, b, b, b});
  };
  const std::vector<Tensor> xs = {plane(1, -2), plane(3, 0)};
  WeightRepairOptions opt;
  opt.bias_correction = true;
  const QuantPlan plan = plan_all(g);
  const auto requests = weight_repair_requests(g, plan, opt);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].gram);
  ConvInputPass pass = collect_conv_inputs(
      g, "x", {requests}, xs.size(), [&](size_t i) { return xs[i]; }, 1);
  EXPECT_EQ(pass.used, 2u);
  EXPECT_EQ(pass.moments.at("conv").mean(0), (std::vector<double>{2, -1}));
  const Tensor w_before = g.initializers.at("w");
  WeightRepairSummary s;
  const auto fixed = repair_weights(g, plan, QuantConfig(), opt, pass.moments, &s);
  EXPECT_TRUE(fixed.empty());  // the weights keep their values; only the bias moved
  EXPECT_EQ(test::max_abs_diff(g.initializers.at("w"), w_before), 0.0);
  const float* b = g.initializers.at("b").data<float>();
  EXPECT_NEAR(b[0], 0.096, 1e-6);
  EXPECT_NEAR(b[1], -0.212, 1e-6);
  EXPECT_EQ(s.convs, 1);
  EXPECT_NEAR(s.max_bias_shift, 0.012, 1e-6);
}

TEST(BiasCorrection, AConvWithoutBiasGetsOne) {
  Graph g = one_by_one_conv({1.27f, 0.504f, -0.626f, 2.54f}, {});
  ConvInputMoments m;
  m.k = 2;
  m.columns = 1;
  m.sum = {2, -1};
  WeightRepairOptions opt;
  opt.bias_correction = true;
  repair_weights(g, plan_all(g), QuantConfig(), opt, {{"conv", m}});
  ASSERT_EQ(g.nodes[0].inputs.size(), 3u);
  const float* b = g.initializers.at(g.nodes[0].inputs[2]).data<float>();
  EXPECT_NEAR(b[0], -0.004, 1e-6);
  EXPECT_NEAR(b[1], -0.012, 1e-6);
}

// ---- GPTQ ----------------------------------------------------------------------------------

// Sum over the calibration columns of the squared output change (W' - W) x of each row.
std::vector<double> output_error(const Tensor& w, const Tensor& wq, const std::vector<Tensor>& xs) {
  const int64_t rows = w.dim(0), c = w.dim(1);
  std::vector<double> err(static_cast<size_t>(rows), 0.0);
  for (const Tensor& x : xs) {
    const int64_t hw = x.dim(2) * x.dim(3);
    for (int64_t o = 0; o < rows; ++o)
      for (int64_t p = 0; p < hw; ++p) {
        double d = 0;
        for (int64_t i = 0; i < c; ++i)
          d += (static_cast<double>(wq.data<float>()[o * c + i]) - w.data<float>()[o * c + i]) *
               x.data<float>()[i * hw + p];
        err[o] += d * d;
      }
  }
  return err;
}

TEST(Gptq, CompensatesCorrelatedInputsAndKeepsExactRows) {
  // Three input channels: x0 = x1 = (1, 1, 2, 2), x2 = (1, -1, -1, 1), uncorrelated with them.
  // H = [[10, 10, 0], [10, 10, 0], [0, 0, 4]], dampened by 0.01 * mean diagonal 8 = 0.08.
  // Row 1 = (10.4, 10.4, 127) steps of 1/127 (max-abs grid). Nearest rounding gives codes
  // (10, 10, 127): both errors +0.4 step add up, output error 0.4^2 * 40 = 6.4 step^2. GPTQ rounds
  // column 0 first (largest diagonal, first of the tie): code 10, residual 0.4; column 1 becomes
  // 10.4 + 0.4 * 10 / 10.08 = 10.797 -> 11; column 2 is uncorrelated and stays 127. Codes
  // (10, 11, 127): errors +0.4 and -0.6 cancel on x0 = x1, (0.16 + 0.36 - 0.48) * 10 = 0.4 step^2.
  // Row 0 = (0.5, -0.25, 0) lies on its own exact grid (step 0.25): it stays as it is.
  const float step = 1.0f / 127;
  const Tensor w = Tensor::from_vector<float>(
      {2, 3, 1, 1}, {0.5f, -0.25f, 0.0f, 10.4f * step, 10.4f * step, 1.0f});
  const std::vector<Tensor> xs = {
      Tensor::from_vector<float>({1, 3, 2, 2}, {1, 1, 2, 2, 1, 1, 2, 2, 1, -1, -1, 1})};
  Node c = conv_node("c", "x", "w", "", "y", 0);
  const ConvInputMoments m = moments_of(c, w.shape(), xs, true);
  EXPECT_EQ(m.gram, (std::vector<double>{10, 10, 0, 10, 10, 0, 0, 0, 4}));
  const TensorEncoding enc = weight_encoding(w, true, 0, 8, "w");
  EXPECT_EQ(enc.channels[0].scale, 0.25f);  // row 0's exact grid
  EXPECT_EQ(enc.channels[1].scale, step);

  GptqResult r = gptq_round(w, enc, m, GptqOptions(), 1);
  const Tensor nearest = dequantize_tensor(quantize_tensor(w, enc), enc);
  const Tensor codes = quantize_tensor(r.weight, enc), nearest_codes = quantize_tensor(w, enc);
  EXPECT_EQ(r.rows, 2);
  EXPECT_EQ(r.rows_exact, 1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.weight.data<float>()[i], w.data<float>()[i]) << i;
  EXPECT_EQ(nearest_codes.data<int8_t>()[3], 10);
  EXPECT_EQ(nearest_codes.data<int8_t>()[4], 10);
  EXPECT_EQ(codes.data<int8_t>()[3], 10);
  EXPECT_EQ(codes.data<int8_t>()[4], 11);
  EXPECT_EQ(codes.data<int8_t>()[5], 127);
  // On the grid: the values are the codes' dequantized values.
  EXPECT_EQ(test::max_abs_diff(dequantize_tensor(codes, enc), r.weight), 0.0);

  const std::vector<double> e_gptq = output_error(w, r.weight, xs);
  const std::vector<double> e_near = output_error(w, nearest, xs);
  EXPECT_EQ(e_gptq[0], 0.0);
  EXPECT_NEAR(e_near[1] / (step * step), 6.4, 1e-3);
  EXPECT_NEAR(e_gptq[1] / (step * step), 0.4, 1e-3);
  EXPECT_LT(e_gptq[1], e_near[1]);
}

// A conv whose input channels share a common component (as neighbouring feature maps do).
struct RandomConv {
  Tensor w;
  std::vector<Tensor> xs;
  Node conv;
};

RandomConv random_conv(unsigned seed) {
  RandomConv r;
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  const int64_t out = 16, in = 6, k = 3, hw = 9;
  std::vector<float> w(out * in * k * k);
  for (float& v : w) v = 0.1f * n01(rng);
  r.w = Tensor::from_vector<float>({out, in, k, k}, w);
  for (int img = 0; img < 3; ++img) {
    std::vector<float> x(in * hw * hw);
    for (int64_t p = 0; p < hw * hw; ++p) {
      const float common = n01(rng);
      for (int64_t c = 0; c < in; ++c) x[c * hw * hw + p] = common + 0.3f * n01(rng) + 0.5f;
    }
    r.xs.push_back(Tensor::from_vector<float>({1, in, hw, hw}, x));
  }
  r.conv = conv_node("c", "x", "w", "", "y", 1);
  return r;
}

// sum over columns of ((W' - W) x)^2 per row, from the Gram matrix: e^T G e.
double gram_error(const Tensor& w, const Tensor& wq, const ConvInputMoments& m) {
  const int64_t rows = w.dim(0), k = m.k;
  double total = 0;
  for (int64_t o = 0; o < rows; ++o)
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j)
        total += (static_cast<double>(wq.data<float>()[o * k + i]) - w.data<float>()[o * k + i]) *
                 (static_cast<double>(wq.data<float>()[o * k + j]) - w.data<float>()[o * k + j]) *
                 m.gram_of(0)[i * k + j];
  return total;
}

TEST(Gptq, BeatsNearestRoundingOnCorrelatedInputs) {
  const RandomConv rc = random_conv(7);
  const ConvInputMoments m = moments_of(rc.conv, rc.w.shape(), rc.xs, true);
  const TensorEncoding enc = weight_encoding(rc.w, true, 0, 8, "w");
  const Tensor nearest = dequantize_tensor(quantize_tensor(rc.w, enc), enc);
  for (bool act_order : {false, true}) {
    GptqOptions opt;
    opt.act_order = act_order;
    const GptqResult r = gptq_round(rc.w, enc, m, opt, 2);
    EXPECT_EQ(r.rows_exact, 0);
    EXPECT_EQ(test::max_abs_diff(dequantize_tensor(quantize_tensor(r.weight, enc), enc), r.weight),
              0.0);
    const double eg = gram_error(rc.w, r.weight, m), en = gram_error(rc.w, nearest, m);
    std::printf("act_order %d: output error GPTQ %.4g, nearest %.4g\n", act_order, eg, en);
    EXPECT_LT(eg, 0.5 * en);
  }
}

TEST(Gptq, BitIdenticalForAnyThreadCount) {
  const RandomConv rc = random_conv(11);
  const ConvInputMoments m1 = moments_of(rc.conv, rc.w.shape(), rc.xs, true, 1);
  const ConvInputMoments m3 = moments_of(rc.conv, rc.w.shape(), rc.xs, true, 3);
  EXPECT_EQ(m1.sum, m3.sum);
  EXPECT_EQ(m1.gram, m3.gram);
  const TensorEncoding enc = weight_encoding(rc.w, true, 0, 8, "w");
  const Tensor a = gptq_round(rc.w, enc, m1, GptqOptions(), 1).weight;
  const Tensor b = gptq_round(rc.w, enc, m1, GptqOptions(), 3).weight;
  EXPECT_EQ(test::max_abs_diff(a, b), 0.0);
}

TEST(Gptq, ExportStoresTheCodesGptqChose) {
  // The repaired weight is exported with the encoding repair used (export_qdq's fixed_weights),
  // not re-derived from the rounded values.
  const RandomConv rc = random_conv(5);
  Graph g;
  g.inputs = {{"x", DType::kFloat32, rc.xs[0].shape()}};
  g.outputs = {{"y", DType::kFloat32, {1, 16, 9, 9}}};
  g.initializers["w"] = rc.w;
  g.nodes.push_back(rc.conv);
  WeightRepairOptions opt;
  opt.gptq = true;
  const QuantPlan plan = plan_all(g);
  ConvInputPass pass = collect_conv_inputs(
      g, "x", {weight_repair_requests(g, plan, opt)}, rc.xs.size(),
      [&](size_t i) { return rc.xs[i]; }, 1);
  Graph repaired = g;
  WeightRepairSummary s;
  const auto fixed = repair_weights(repaired, plan, QuantConfig(), opt, pass.moments, &s);
  ASSERT_EQ(fixed.size(), 1u);
  EXPECT_GT(s.codes_changed, 0);
  const TensorEncoding& enc = fixed.at("w");
  const Tensor expected = quantize_tensor(repaired.initializers.at("w"), enc);
  const Stats stats = test::calibrate(g, "x", rc.xs);
  const QdqModel q = export_qdq(repaired, plan, activation_encodings(g, plan, stats, QuantConfig()),
                                QuantConfig(), fixed);
  const Tensor& stored = q.graph.initializers.at("w_quantized");
  ASSERT_EQ(stored.numel(), expected.numel());
  for (int64_t i = 0; i < stored.numel(); ++i)
    ASSERT_EQ(stored.data<int8_t>()[i], expected.data<int8_t>()[i]) << i;
}

// ---- cross-layer equalization --------------------------------------------------------------

// x [1,2,5,5] -> Conv 3x3 (a) -> [between] -> depthwise Conv 3x3 (dw) -> y.
Graph conv_then_depthwise(const std::string& between) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 5, 5}}};
  g.outputs = {{"y", DType::kFloat32, {1, 2, 5, 5}}};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> w1(2 * 2 * 9), w2(2 * 9);
  for (int i = 0; i < 36; ++i) w1[i] = u(rng) * (i < 18 ? 1.0f : 100.0f);  // ranges ~1, ~100
  for (int i = 0; i < 18; ++i) w2[i] = u(rng) * (i < 9 ? 10.0f : 0.1f);    // ranges ~10, ~0.1
  w1[0] = 1.0f, w1[18] = -100.0f, w2[0] = 10.0f, w2[9] = 0.1f;             // exactly those
  g.initializers["w1"] = Tensor::from_vector<float>({2, 2, 3, 3}, w1);
  g.initializers["b1"] = Tensor::from_vector<float>({2}, {0.5f, -3.0f});
  g.initializers["w2"] = Tensor::from_vector<float>({2, 1, 3, 3}, w2);
  g.initializers["b2"] = Tensor::from_vector<float>({2}, {0.25f, 0.125f});
  g.nodes.push_back(conv_node("a", "x", "w1", "b1", "t", 1));
  std::string in = "t";
  if (between == "relu") {
    g.nodes.push_back(node("relu", "Relu", {"t"}, {"r"}));
    in = "r";
  } else if (between == "silu") {
    g.nodes.push_back(node("sig", "Sigmoid", {"t"}, {"s"}));
    g.nodes.push_back(node("mul", "Mul", {"t", "s"}, {"m"}));
    in = "m";
  } else if (between == "shared") {
    g.outputs.push_back({"t", DType::kFloat32, {1, 2, 5, 5}});
  }
  g.nodes.push_back(conv_node("dw", in, "w2", "b2", "y", 1, 1, 2));
  return g;
}

TEST(Cle, FindsPairsByStructure) {
  auto one = [](const std::string& between) {
    std::vector<EqualizationCandidate> c = find_equalization_pairs(conv_then_depthwise(between));
    EXPECT_EQ(c.size(), 1u) << between;
    return c.at(0);
  };
  EqualizationCandidate plain = one("none"), relu = one("relu"), silu = one("silu"),
                        shared = one("shared");
  EXPECT_TRUE(plain.applicable()) << plain.blocked;
  EXPECT_EQ(plain.first, "a");
  EXPECT_EQ(plain.between, (std::vector<std::string>{"t"}));
  EXPECT_TRUE(relu.applicable()) << relu.blocked;
  EXPECT_EQ(relu.between, (std::vector<std::string>{"t", "r"}));
  EXPECT_FALSE(silu.applicable());
  EXPECT_EQ(silu.first, "a");
  EXPECT_EQ(silu.blocked, "SiLU between: not positively homogeneous");
  EXPECT_FALSE(shared.applicable());
  EXPECT_NE(shared.blocked.find("also read elsewhere"), std::string::npos) << shared.blocked;
}

TEST(Cle, BalancesRangesAndKeepsTheFunction) {
  Graph g = conv_then_depthwise("relu");
  std::vector<float> x(50);
  for (int i = 0; i < 50; ++i) x[i] = std::sin(0.37f * i);
  const std::map<std::string, Tensor> feed = {{"x", Tensor::from_vector<float>({1, 2, 5, 5}, x)}};
  const Tensor before = Executor(g).run(feed).at("y");
  const std::vector<EqualizedPair> pairs = equalize_pairs(g, find_equalization_pairs(g));
  ASSERT_EQ(pairs.size(), 1u);
  // Channel ranges (1, 100) and (10, 0.1): s = sqrt(1 / 10), sqrt(100 / 0.1); every range becomes
  // sqrt(10).
  auto range = [](const Tensor& t, int64_t row) {
    const int64_t k = t.numel() / t.dim(0);
    double m = 0;
    for (int64_t i = 0; i < k; ++i)
      m = std::max(m, double(std::fabs(t.data<float>()[row * k + i])));
    return m;
  };
  for (int64_t c = 0; c < 2; ++c) {
    EXPECT_NEAR(range(g.initializers.at("w1"), c), std::sqrt(10.0), 1e-5) << c;
    EXPECT_NEAR(range(g.initializers.at("w2"), c), std::sqrt(10.0), 1e-5) << c;
  }
  EXPECT_NEAR(g.initializers.at("b1").data<float>()[1], -3.0 / std::sqrt(1000.0), 1e-6);
  EXPECT_NEAR(pairs[0].spread_before, 100.0, 1e-9);
  EXPECT_NEAR(pairs[0].spread_after, 1.0, 1e-5);
  const Tensor after = Executor(g).run(feed).at("y");
  double scale = 0;
  for (int64_t i = 0; i < before.numel(); ++i)
    scale = std::max(scale, double(std::fabs(before.data<float>()[i])));
  EXPECT_LT(test::max_abs_diff(before, after), 1e-5 * scale);
}

TEST(Cle, YoloPoseHasNoEqualizablePair) {
  // YOLO11's depthwise convs: the head's class branch (DWConv after the neck's and after a 1x1
  // Conv, each followed by SiLU) and the attention's positional conv, which reads a reshaped Split
  // of the qkv conv that MatMul reads too.
  const std::vector<EqualizationCandidate> c =
      find_equalization_pairs(build_yolo11("yolo11n-pose"));
  int silu = 0, applicable = 0;
  for (const EqualizationCandidate& e : c) {
    applicable += e.applicable();
    silu += e.blocked == "SiLU between: not positively homogeneous";
  }
  std::printf("%s\n", describe_equalization(c).c_str());
  EXPECT_EQ(c.size(), 7u);
  EXPECT_EQ(applicable, 0);
  EXPECT_EQ(silu, 6);
}

}  // namespace
}  // namespace edgeq
