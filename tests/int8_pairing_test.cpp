// Which products x86 int8 kernels add into one saturating int16 (runtime/int8_pairs.h), probed in
// the libraries themselves, and --emulate avx2 against ONNX Runtime's own outputs from an AVX2 CPU
// (tests/data/ort-avx2-int8, README there).
#include <gtest/gtest.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/npy.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "runtime/fake_quant.h"
#include "runtime/int8_lowering.h"
#include "runtime/int8_pairs.h"
#include "test_util.h"

namespace edgeq {
namespace {

using PairSet = std::set<std::pair<int32_t, int32_t>>;

struct ProbeShape {
  int64_t c_in, k, group;
};

// Every pair of positions of one output channel's weights [C/group, k, k], one output channel
// each; a depthwise conv (C/group = 1) has one position per channel, so it probes pairs of taps
// with c_in = (k*k choose 2) channels.
std::vector<std::pair<int32_t, int32_t>> probe_pairs(const ProbeShape& p) {
  const int32_t n = static_cast<int32_t>(p.c_in / p.group * p.k * p.k);
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (int32_t a = 0; a < n; ++a)
    for (int32_t b = a + 1; b < n; ++b) pairs.push_back({a, b});
  return pairs;
}

// Weights [O, C/group, k, k]: output channel o holds 127 at both positions of pair o, 0 elsewhere
// (a depthwise channel: at its pair of taps). With every input code 255, pair o's sum is
// 2 x 255 x 127 = 64770 when nothing pairs them and 32767 when one int16 holds both.
Tensor probe_weights(const ProbeShape& p, const std::vector<std::pair<int32_t, int32_t>>& pairs) {
  const int64_t cig = p.c_in / p.group, per_out = cig * p.k * p.k;
  // Output channels per group a multiple of 8, as oneDNN's jit kernels want (else it runs its exact
  // reference convolution).
  const int64_t step = 8 * p.group;
  const int64_t c_out = cig == 1 ? p.c_in : (int64_t(pairs.size()) + step - 1) / step * step;
  Tensor w(DType::kInt8, {c_out, cig, p.k, p.k});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = 0;
  for (int64_t o = 0; o < c_out && o < int64_t(pairs.size()); ++o) {
    w.data<int8_t>()[o * per_out + pairs[o].first] = 127;
    w.data<int8_t>()[o * per_out + pairs[o].second] = 127;
  }
  return w;
}

// The probe pairs whose output channel came out saturated (centre pixel, no padding).
PairSet saturated(const Tensor& y, const std::vector<std::pair<int32_t, int32_t>>& pairs,
                  float exact, float tolerance) {
  PairSet out;
  const int64_t plane = y.dim(2) * y.dim(3);
  for (int64_t o = 0; o < y.dim(1) && o < int64_t(pairs.size()); ++o)
    if (std::fabs(y.data<float>()[o * plane + plane / 2] - exact) > tolerance) out.insert(pairs[o]);
  return out;
}

PairSet expected(const ProbeShape& p, PairOrder order) {
  PairSet s;
  for (const auto& [a, b] : conv_weight_pairs(p.c_in / p.group, p.k, p.k, order))
    s.insert({std::min(a, b), std::max(a, b)});
  return s;
}

std::string describe(const ProbeShape& p) {
  return "c_in " + std::to_string(p.c_in) + ", " + std::to_string(p.k) + "x" + std::to_string(p.k) +
         ", group " + std::to_string(p.group);
}

// 1x1, 3x3 with an odd channel count (the first conv's 3: MLAS pairs across taps), with a
// multiple of 4 (MLAS's symmetric conv kernels), grouped, and depthwise (no pairs).
const std::vector<ProbeShape> kProbes = {{8, 1, 1}, {3, 3, 1}, {4, 3, 1}, {8, 3, 2}, {36, 3, 36}};

// The QDQ probe model: x (float, codes = x with scale 1, zero point `zx`) -> Conv with `w`
// (scale 1) -> Quantize (scale 256) -> out. ORT's default session fuses it into QLinearConv.
Graph probe_model(const ProbeShape& p, const Tensor& w, int zx) {
  const int64_t c_out = w.dim(0);
  Tensor ws(DType::kFloat32, {c_out}), wz(DType::kInt8, {c_out});
  for (int64_t o = 0; o < c_out; ++o) ws.data<float>()[o] = 1.f, wz.data<int8_t>()[o] = 0;
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::kFloat32, {1, p.c_in, 5, 5}}};
  g.outputs = {{"out", DType::kFloat32, {}}};
  g.initializers = {{"sx", Tensor::scalar<float>(1.f)},
                    {"zx", Tensor::scalar<uint8_t>(uint8_t(zx))},
                    {"w", w},
                    {"ws", ws},
                    {"wz", wz},
                    {"sy", Tensor::scalar<float>(256.f)},
                    {"zy", Tensor::scalar<uint8_t>(0)}};
  g.nodes.push_back(test::node("qx", "QuantizeLinear", {"x", "sx", "zx"}, {"xq"}));
  g.nodes.push_back(test::node("dx", "DequantizeLinear", {"xq", "sx", "zx"}, {"xd"}));
  Node dw = test::node("dw", "DequantizeLinear", {"w", "ws", "wz"}, {"wd"});
  dw.attrs["axis"] = test::int_attr(0);
  g.nodes.push_back(dw);
  Node conv = test::node("conv", "Conv", {"xd", "wd"}, {"y"});
  conv.attrs["group"] = test::int_attr(p.group);
  g.nodes.push_back(conv);
  g.nodes.push_back(test::node("qy", "QuantizeLinear", {"y", "sy", "zy"}, {"yq"}));
  g.nodes.push_back(test::node("dy", "DequantizeLinear", {"yq", "sy", "zy"}, {"out"}));
  return g;
}

// Whether this CPU has AVX-512 (BW) without VNNI: ORT and oneDNN run their AVX-512 int8 kernels,
// which pair products too, but whose order was probed only on AVX2 (the tests then check that
// products saturate, and print whether the order is the declared one).
bool avx512_without_vnni() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 30)) && !test::cpu_has_vnni();
#else
  return false;
#endif
}

void expect_pairs(const PairSet& found, const PairSet& declared, bool saturates) {
  if (!saturates) {
    EXPECT_EQ(found, PairSet{});
  } else if (avx512_without_vnni()) {
    EXPECT_FALSE(found.empty());
    std::printf("AVX-512 without VNNI: %s\n",
                found == declared ? "the declared order" : "ANOTHER ORDER than the declared one");
  } else {
    EXPECT_EQ(found, declared);
  }
}

// ONNX Runtime's int8 kernels (its default session) on this CPU: without VNNI exactly the pairs
// PairOrder::kOnnxRuntime names saturate, whatever the input's zero point (the raw u8 codes are
// multiplied); with VNNI none does.
TEST(Int8Pairing, OnnxRuntimesKernelsPairAsDeclared) {
  EDGEQ_REQUIRE_ORT();
  const std::string dir = test::temp_dir("ort_pairs");
  for (const ProbeShape& p : kProbes)
    for (int zx : {0, 128}) {
      SCOPED_TRACE(describe(p) + ", input zero point " + std::to_string(zx));
      const auto pairs = probe_pairs(p);
      const std::string path = dir + "/probe.onnx";
      save_onnx(probe_model(p, probe_weights(p, pairs), zx), path);
      Tensor x(DType::kFloat32, {1, p.c_in, 5, 5});
      for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 255.f - zx;  // code 255
      const Tensor y = test::run_ort(path, {{"x", x}}, test::OrtGraph::kOrtKernels).at("out");
      const float exact = std::nearbyint((255.f - zx) * 254.f / 256.f) * 256.f;
      expect_pairs(saturated(y, pairs, exact, 300.f), expected(p, PairOrder::kOnnxRuntime),
                   !test::cpu_has_vnni() && p.group < p.c_in);
    }
}

// oneDNN's int8 convolution as QConv runs it unsplit: without AVX-512 VNNI (as oneDNN's ISA cap
// sees it) exactly the pairs PairOrder::kOneDnn names saturate.
TEST(Int8Pairing, OneDnnsKernelsPairAsDeclared) {
  const bool saturates = cpu_int8_pairs_saturate();
  for (const ProbeShape& p : kProbes) {
    SCOPED_TRACE(describe(p));
    const auto pairs = probe_pairs(p);
    const Tensor w = probe_weights(p, pairs);
    Graph g;
    g.inputs = {{"x", DType::kUInt8, {1, p.c_in, 5, 5}}};
    g.outputs = {{"y", DType::kFloat32, {}}};
    g.initializers["w"] = w;
    Node n{"qconv", "QConv", "edgeq", {"x", "w"}, {"y"}, {}};
    n.attrs["group"] = test::int_attr(p.group);
    n.plan.in_grid = FakeQuantParams{1.f, 0, 255};
    n.plan.weight_scales = std::vector<float>(size_t(w.dim(0)), 1.f);
    g.nodes.push_back(n);
    Tensor x(DType::kUInt8, {1, p.c_in, 5, 5});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = 255;
    set_int8_pairs_saturate(false);  // oneDNN's own arithmetic, never split
    Tensor y;
    {
      Executor ex(g);
      y = ex.run({{"x", x}}).at("y");
    }
    set_int8_pairs_saturate(std::nullopt);
    expect_pairs(saturated(y, pairs, 64770.f, 0.5f), expected(p, PairOrder::kOneDnn),
                 saturates && p.group < p.c_in);
  }
}

// The convolutions of yolo11n-pose (input channels, output channels, input size, kernel, stride;
// the input size capped at 24, which changes no channel blocking): with weights that no pair of
// PairOrder::kOneDnn can overflow but many other pairs would (channel signs + - - + at every
// tap), oneDNN's unsplit kernels give the exact integer sums, and QConv runs them unsplit on AVX2.
// On a CPU with VNNI nothing saturates (run capped: ONEDNN_MAX_CPU_ISA=AVX2, scripts/test.sh).
TEST(Int8Pairing, OneDnnsOrderHoldsOnTheRealModelsConvs) {
  struct Shape {
    int64_t c_in, c_out, size, k, stride;
  };
  const std::vector<Shape> shapes = {
      {3, 16, 640, 3, 2},   {16, 32, 320, 3, 2},  {16, 8, 160, 3, 1},   {8, 16, 160, 3, 1},
      {32, 32, 160, 1, 1},  {48, 64, 160, 1, 1},  {64, 64, 160, 3, 2},  {16, 32, 80, 3, 1},
      {32, 16, 80, 3, 1},   {96, 64, 80, 1, 1},   {96, 128, 80, 1, 1},  {64, 64, 80, 3, 1},
      {64, 51, 80, 3, 1},   {128, 128, 80, 3, 2}, {51, 51, 80, 3, 1},   {256, 64, 80, 1, 1},
      {32, 64, 40, 3, 1},   {64, 32, 40, 1, 1},   {128, 51, 40, 3, 1},  {128, 256, 40, 3, 2},
      {192, 128, 40, 1, 1}, {384, 128, 40, 1, 1}, {64, 1, 40, 1, 1},    {256, 51, 20, 3, 1},
      {256, 256, 20, 1, 1}, {384, 256, 20, 1, 1}, {512, 256, 20, 1, 1}, {128, 64, 20, 1, 1}};
  const bool order_known = onednn_int8_pair_order_known();
  std::mt19937 rng(7);
  for (const Shape& sh : shapes) {
    const int64_t size = std::min<int64_t>(sh.size, 24), pad = sh.k / 2;
    SCOPED_TRACE("c_in " + std::to_string(sh.c_in) + ", c_out " + std::to_string(sh.c_out) + ", " +
                 std::to_string(sh.k) + "x" + std::to_string(sh.k) + " / " +
                 std::to_string(sh.stride));
    Tensor w(DType::kInt8, {sh.c_out, sh.c_in, sh.k, sh.k});
    for (int64_t o = 0; o < sh.c_out; ++o)
      for (int64_t c = 0; c < sh.c_in; ++c)
        for (int64_t t = 0; t < sh.k * sh.k; ++t) {
          const int sign = (c % 4 == 0 || c % 4 == 3) ? 1 : -1;
          w.data<int8_t>()[(o * sh.c_in + c) * sh.k * sh.k + t] =
              static_cast<int8_t>(sign * (100 + int(rng() % 28)));
        }
    EXPECT_EQ(count_weight_pairs(w, PairOrder::kOneDnn).can_overflow, 0);
    if (sh.c_in > 2) {
      EXPECT_TRUE(weight_pairs_can_overflow(w));
    }
    if (order_known) {
      EXPECT_FALSE(int8_conv_splits_weights(w, 1));
    }
    Graph g;
    g.inputs = {{"x", DType::kUInt8, {1, sh.c_in, size, size}}};
    g.outputs = {{"y", DType::kFloat32, {}}};
    g.initializers["w"] = w;
    Node n{"qconv", "QConv", "edgeq", {"x", "w"}, {"y"}, {}};
    n.attrs["strides"] = test::ints_attr({sh.stride, sh.stride});
    n.attrs["pads"] = test::ints_attr({pad, pad, pad, pad});
    n.plan.in_grid = FakeQuantParams{1.f, 0, 255};
    n.plan.weight_scales = std::vector<float>(size_t(sh.c_out), 1.f);
    g.nodes.push_back(n);
    Tensor x(DType::kUInt8, {1, sh.c_in, size, size});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(200 + rng() % 56);
    set_int8_pairs_saturate(false);  // oneDNN's own arithmetic, never split
    Tensor y;
    {
      Executor ex(g);
      y = ex.run({{"x", x}}).at("y");
    }
    set_int8_pairs_saturate(std::nullopt);
    const int64_t out = y.dim(2);
    ASSERT_EQ(out, (size + 2 * pad - sh.k) / sh.stride + 1);
    int64_t wrong = 0;
    for (int64_t o = 0; o < sh.c_out; ++o)
      for (int64_t oy = 0; oy < out; ++oy)
        for (int64_t ox = 0; ox < out; ++ox) {
          int64_t sum = 0;  // the exact integer sum; padded taps read code 0 (zero point 0)
          for (int64_t c = 0; c < sh.c_in; ++c)
            for (int64_t ky = 0; ky < sh.k; ++ky)
              for (int64_t kx = 0; kx < sh.k; ++kx) {
                const int64_t iy = oy * sh.stride - pad + ky, ix = ox * sh.stride - pad + kx;
                if (iy < 0 || ix < 0 || iy >= size || ix >= size) continue;
                sum += int64_t(x.data<uint8_t>()[(c * size + iy) * size + ix]) *
                       w.data<int8_t>()[((o * sh.c_in + c) * sh.k + ky) * sh.k + kx];
              }
          wrong += y.data<float>()[(o * out + oy) * out + ox] != static_cast<float>(sum);
        }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(Int8Pairing, OrdersByHand) {
  // 3 channels, 1x2 kernel: flat index c * 2 + x. MLAS's order (x, c): (0,0) (0,1) | (0,2) (1,0)
  // | (1,1) (1,2); oneDNN's: channels 0 and 1 at each tap, channel 2 alone.
  EXPECT_EQ(conv_weight_pairs(3, 1, 2, PairOrder::kOnnxRuntime),
            (std::vector<WeightPair>{{0, 2}, {4, 1}, {3, 5}}));
  EXPECT_EQ(conv_weight_pairs(3, 1, 2, PairOrder::kOneDnn),
            (std::vector<WeightPair>{{0, 2}, {1, 3}}));
  EXPECT_TRUE(conv_weight_pairs(1, 3, 3, PairOrder::kOnnxRuntime).empty());  // depthwise
  EXPECT_TRUE(pair_can_overflow(65, 64));
  EXPECT_FALSE(pair_can_overflow(64, 64));
  EXPECT_TRUE(pair_can_overflow(-1, -128));
  EXPECT_FALSE(pair_can_overflow(127, -127));
  EXPECT_EQ(saturate_int16(64770), 32767);
  EXPECT_EQ(saturate_int16(-40000), -32768);
}

// ONNX Runtime's own int8 outputs from an AVX2 CPU without VNNI (tests/data/ort-avx2-int8): the
// emulation lands as close to them as two exact engines land to each other (~0.7), while the
// exact integer run stays as far as the QDQ formula does (~2.7).
TEST(Int8Pairing, EmulationReproducesOnnxRuntimeOnAvx2) {
  const std::string data = test::source_dir() + "/tests/data/ort-avx2-int8";
  const Graph model = load_onnx(data + "/yolo11n-pose.w8a8.onnx");
  auto mean_abs = [](const Tensor& a, const Tensor& b) {
    EXPECT_EQ(a.shape(), b.shape());
    double s = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
      s += std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]);
    return s / double(a.numel());
  };
  ExecutorOptions exact_opt, emulated_opt;
  exact_opt.exec = emulated_opt.exec = ExecMode::kInt8;
  emulated_opt.emulate = Int8Emulation::kAvx2;
  Executor exact(model, exact_opt), emulated(model, emulated_opt);
  double sum_emulated = 0, sum_exact = 0;
  const std::vector<std::string> images = {"000000000110", "000000000113", "000000000136",
                                           "000000000151"};
  for (const std::string& image : images) {
    SCOPED_TRACE(image);
    const Tensor x = load_npy(data + "/inputs/" + image + ".npy");
    const Tensor ort = load_npy(data + "/ort_int8_outputs/" + image + ".output0.npy");
    const double d_emulated = mean_abs(emulated.run({{"images", x}}).at("output0"), ort);
    const double d_exact = mean_abs(exact.run({{"images", x}}).at("output0"), ort);
    EXPECT_LT(d_emulated, 1.0);
    EXPECT_GT(d_exact, 1.5);
    sum_emulated += d_emulated;
    sum_exact += d_exact;
  }
  std::printf("mean |output0 - ORT AVX2 int8|: emulated %.3f, exact int8 %.3f\n",
              sum_emulated / images.size(), sum_exact / images.size());
}

}  // namespace
}  // namespace edgeq
