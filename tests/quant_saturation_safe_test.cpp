// quantize --saturation-safe (encode/saturation_safe.h): int8 Conv codes no int16 pair of x86 int8
// kernels without VNNI can overflow, by hand, inside GPTQ, and end to end through ONNX Runtime's
// own int8 kernels and edgeq's emulation of them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "encode/saturation_safe.h"
#include "encode/weight_encoding.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "repair/conv_input_moments.h"
#include "repair/gptq.h"
#include "runtime/executor.h"
#include "runtime/int8_pairs.h"
#include "runtime/kernels/conv_common.h"
#include "test_util.h"

namespace edgeq {
namespace {

bool any_overflowing_pair(const Tensor& codes) {
  for (PairOrder order : {PairOrder::kOnnxRuntime, PairOrder::kOneDnn})
    if (count_weight_pairs(codes, order).can_overflow > 0) return true;
  return false;
}

TEST(SaturationSafe, PartnersAreBothLibrariesPairs) {
  // 3 channels, 1x2 kernel (flat index c * 2 + x): MLAS pairs (0,2) (4,1) (3,5); oneDNN (0,2)
  // (1,3).
  const auto p = pair_partners(3, 1, 2);
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0], (std::vector<int32_t>{2}));
  EXPECT_EQ(p[1], (std::vector<int32_t>{4, 3}));
  EXPECT_EQ(p[3], (std::vector<int32_t>{5, 1}));
  EXPECT_EQ(p[4], (std::vector<int32_t>{1}));
  EXPECT_EQ(p[5], (std::vector<int32_t>{3}));
  // A partner already chosen at +100 allows at most 28; at -100, at least -28; 0 always fits.
  const int64_t codes[] = {100, -100, 0};
  const char chosen[] = {1, 1, 0};
  const CodeRange r = safe_code_range({0, 1, 2}, codes, chosen, -127, 127);
  EXPECT_EQ(r.lo, -28);
  EXPECT_EQ(r.hi, 28);
}

// One output channel, 2 channels x 1 tap: the pair (0, 1). Unrounded codes 100.4 and 60.0 round
// to 100 + 60 = 160, 32 over 128: the code rounded up the most comes down first, then both share,
// ending at 84 + 44 (each lowered 16, nearest to 84.4 + 43.6 = 128 on the integer grid).
TEST(SaturationSafe, LowersOnlyOverflowingPairsNearestToTheirValues) {
  const TensorEncoding enc = TensorEncoding::per_tensor(encoding_from_range(-127, 127, 8, true));
  ASSERT_FLOAT_EQ(enc.at(0).scale, 1.f);
  Tensor w = Tensor::from_vector<float>({2, 2, 1, 1}, {100.4f, 60.f, 127.f, -127.f});
  Tensor q = quantize_tensor(w, enc);
  EXPECT_EQ(make_pairs_safe(q, w, enc), 2);
  EXPECT_EQ(q.data<int8_t>()[0] + q.data<int8_t>()[1], 128);
  EXPECT_EQ(q.data<int8_t>()[0], 84);
  EXPECT_EQ(q.data<int8_t>()[2], 127);  // opposite signs: never overflow, never changed
  EXPECT_EQ(q.data<int8_t>()[3], -127);
  EXPECT_FALSE(any_overflowing_pair(q));
  // Negative pairs come up to -128 (255 x -128 = -32640 fits).
  Tensor n = Tensor::from_vector<float>({1, 2, 1, 1}, {-127.f, -127.f});
  Tensor qn = quantize_tensor(n, enc);
  EXPECT_EQ(make_pairs_safe(qn, n, enc), 2);
  EXPECT_EQ(qn.data<int8_t>()[0] + qn.data<int8_t>()[1], -128);
}

// The grid per channel: a channel whose one pair barely overflows (65 + 65) keeps (nearly) its
// grid and lowers that pair; a channel where every tap's channels pair up large (as the first
// conv's RGB weights do) gets a coarser grid instead of losing a quarter of each weight.
// Reduce-range keeps every code within [-64, 64].
TEST(SaturationSafe, ChoosesACoarserGridWhereManyPairsOverflow) {
  std::vector<float> wv(2 * 4 * 9, 0.f);
  for (int i = 0; i < 36; ++i) wv[i] = float((i * 37) % 121 - 60);  // row 0: no pair over 120,
  wv[0] = wv[9] = 65.f;                                             // but this one (130),
  wv[1] = -127.f, wv[10] = 10.f;                                    // and a grid of 1
  for (int i = 36; i < 72; ++i) wv[i] = 127.f - (i % 7);            // row 1
  const Tensor w = Tensor::from_vector<float>({2, 4, 3, 3}, wv);
  const TensorEncoding plain = weight_encoding(w, true, 0, 8, "w");
  const TensorEncoding safe = saturation_safe_encoding(w, plain);
  EXPECT_LT(safe.at(0).scale, 1.01f * plain.at(0).scale);  // (nearly) its own grid
  EXPECT_GT(safe.at(1).scale, 1.5f * plain.at(1).scale);
  Tensor q = quantize_tensor(w, safe);
  make_pairs_safe(q, w, safe);
  EXPECT_FALSE(any_overflowing_pair(q));
  EXPECT_EQ(q.data<int8_t>()[0] + q.data<int8_t>()[9], 128);
  double err = 0;  // row 1: every weight within a step of its value
  const Tensor back = dequantize_tensor(q, safe);
  for (int i = 36; i < 72; ++i)
    err = std::max(err, std::fabs(double(back.data<float>()[i]) - wv[i]) / safe.at(1).scale);
  EXPECT_LE(err, 1.0);
  const TensorEncoding rr = reduce_range_encoding(w, plain);
  const Tensor qr = quantize_tensor(w, rr);
  for (int64_t i = 0; i < qr.numel(); ++i) EXPECT_LE(std::abs(int(qr.data<int8_t>()[i])), 64);
  EXPECT_FLOAT_EQ(rr.at(1).scale, 127.f / 64.f);
  EXPECT_FALSE(any_overflowing_pair(qr));
}

// A 3x3 conv with 3 input channels (the two orders differ) and random weights whose rows have
// pairs that overflow: after GPTQ with saturation_safe none does under either order, and rows
// where plain GPTQ chose no overflowing pair keep plain GPTQ's values.
TEST(SaturationSafe, GptqClampsPairsAndCompensates) {
  std::mt19937 rng(11);
  std::normal_distribution<float> n01(0.f, 1.f);
  const int64_t out = 24, in = 3, hw = 8;
  std::vector<float> wv(out * in * 9);
  for (float& v : wv) v = 0.1f * n01(rng);
  for (int64_t o = 0; o < out; o += 2) wv[o * 27] = wv[o * 27 + 1] = 0.35f;  // MLAS's pair (0, 9)
  const Tensor w = Tensor::from_vector<float>({out, in, 3, 3}, wv);
  Node conv = test::node("c", "Conv", {"x", "w"}, {"y"});
  conv.attrs["pads"] = test::ints_attr({1, 1, 1, 1});
  std::vector<Tensor> xs;
  for (int img = 0; img < 3; ++img) {
    std::vector<float> x(in * hw * hw);
    for (float& v : x) v = n01(rng) + 0.5f;
    xs.push_back(Tensor::from_vector<float>({1, in, hw, hw}, x));
  }
  ConvInputAccumulator acc(conv_geometry(conv, xs[0].shape(), w.shape()), true);
  for (const Tensor& x : xs) acc.add(x, 1);
  const ConvInputMoments m = acc.take();
  const TensorEncoding enc = weight_encoding(w, true, 0, 8, "w");
  GptqOptions safe_opt;
  safe_opt.saturation_safe = true;
  const Tensor plain = gptq_round(w, enc, m, GptqOptions(), 2).weight;
  const Tensor safe = gptq_round(w, enc, m, safe_opt, 2).weight;
  const Tensor plain_codes = quantize_tensor(plain, enc), safe_codes = quantize_tensor(safe, enc);
  EXPECT_TRUE(any_overflowing_pair(plain_codes));
  EXPECT_FALSE(any_overflowing_pair(safe_codes));
  const auto partners = pair_partners(in, 3, 3);
  int64_t kept = 0;
  for (int64_t o = 0; o < out; ++o) {
    if (row_has_overflowing_pair(plain_codes, o, partners)) continue;
    ++kept;
    for (int64_t i = 0; i < 27; ++i)
      EXPECT_EQ(plain.data<float>()[o * 27 + i], safe.data<float>()[o * 27 + i]) << "row " << o;
  }
  EXPECT_GT(kept, 0);
}

// test::paired_conv_model (a 3x3 conv with strong same-sign pairs): exported plain, --exec int8
// --emulate avx2 departs from the exact int8 run; exported saturation-safe, no pair can overflow,
// so the emulation equals the exact run bit for bit, and ONNX Runtime's own int8 kernels land
// within a step of its exact QDQ formula on any CPU (on a CPU without VNNI the plain file's do
// not).
TEST(SaturationSafe, ExportedModelRunsTheSameWithSaturatingPairs) {
  const test::PairedConv model = test::paired_conv_model(5);
  const Graph& g = model.graph;
  const std::vector<Tensor>& xs = model.inputs;
  const Stats stats = test::calibrate(g, "x", xs);
  QuantConfig c;
  auto run = [&](const Graph& q, Int8Emulation e) {
    ExecutorOptions o;
    o.exec = ExecMode::kInt8;
    o.emulate = e;
    Executor ex(q, o);
    return ex.run({{"x", xs[0]}}).at("y");
  };
  const Graph plain = test::export_qdq_model(g, stats, c).graph;
  EXPECT_GT(test::max_abs_diff(run(plain, Int8Emulation::kAvx2), run(plain, Int8Emulation::kNone)),
            0.0);
  c.saturation_safe = true;
  const Graph safe = test::export_qdq_model(g, stats, c).graph;
  for (const auto& [name, t] : safe.initializers)
    if (t.dtype() == DType::kInt8 && t.rank() == 4) {
      EXPECT_FALSE(any_overflowing_pair(t)) << name;
    }
  EXPECT_EQ(test::max_abs_diff(run(safe, Int8Emulation::kAvx2), run(safe, Int8Emulation::kNone)),
            0.0);

  EDGEQ_REQUIRE_ORT();
  const std::string dir = test::temp_dir("saturation_safe");
  save_onnx(safe, dir + "/safe.onnx");
  const Tensor formula = test::run_ort(dir + "/safe.onnx", {{"x", xs[0]}}).at("y");
  const Tensor kernels =
      test::run_ort(dir + "/safe.onnx", {{"x", xs[0]}}, test::OrtGraph::kOrtKernels).at("y");
  EXPECT_LE(test::max_abs_diff(formula, kernels), 1.01 * test::output_step(safe, "y"));
  if (!test::cpu_has_vnni()) {  // the plain file shows what the test guards against
    save_onnx(plain, dir + "/plain.onnx");
    const Tensor f = test::run_ort(dir + "/plain.onnx", {{"x", xs[0]}}).at("y");
    const Tensor k =
        test::run_ort(dir + "/plain.onnx", {{"x", xs[0]}}, test::OrtGraph::kOrtKernels).at("y");
    EXPECT_GT(test::max_abs_diff(f, k), 2 * test::output_step(plain, "y"));
  }
}

}  // namespace
}  // namespace edgeq
