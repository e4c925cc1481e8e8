// Encodings of non-weight constants in QDQ export, on x -> Mul(x, c) -> y with a hand-chosen c:
// exact at the activation width when c lies on a grid that fits, else 16 bit when y belongs to
// the YOLO decode tail (config.decode_tail) or is itself 16-bit, else from c's own range.
#include <gtest/gtest.h>

#include "encode/qdq_import.h"
#include "graph_builders.h"

namespace edgeq {
namespace {

Graph mul_by_constant(const std::vector<float>& c) {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 4, 4}}};
  g.outputs = {{"y", DType::kFloat32, {1, 2, 4, 4}}};
  g.initializers["c"] = Tensor::from_vector<float>({1, 2, 1, 1}, c);
  g.nodes.push_back(test::node("mul", "Mul", {"x", "c"}, {"y"}));
  return g;
}

// The encoding c gets and its stored codes.
struct ConstantQ {
  Encoding e;
  std::vector<int64_t> codes;
};

ConstantQ quantize_constant(const std::vector<float>& c, const QuantConfig& config) {
  Graph g = mul_by_constant(c);
  Stats s = test::calibrate(g, "x", test::uniform_inputs(2, 5, 0, 1));
  Graph q = test::export_qdq_model(g, s, config).graph;
  ConstantQ r;
  r.e = encodings_from_qdq(q).params.at("c").channels.at(0);
  r.codes = q.initializers.at("c_quantized").to_ints();
  return r;
}

}  // namespace

TEST(QuantConstantEncoding, OffGridConstantFromItsRangeAt8Bit) {
  // (1, 0.3): 0.3 divides nothing, their common power-of-two step is 2^-24: no exact grid.
  ConstantQ r = quantize_constant({1.0f, 0.3f}, config_for_scheme(Scheme::kW8A8));
  EXPECT_EQ(r.e.bitwidth, 8);
  EXPECT_FLOAT_EQ(r.e.scale, 1.0f / 255);
  EXPECT_EQ(r.e.zero_point(), 0);
}

TEST(QuantConstantEncoding, DecodeTailOrA16OutputTakes16Bit) {
  QuantConfig tail = config_for_scheme(Scheme::kW8A8);
  tail.decode_tail = {"y"};
  ConstantQ r = quantize_constant({1.0f, 0.3f}, tail);
  EXPECT_EQ(r.e.bitwidth, 16);
  EXPECT_FLOAT_EQ(r.e.scale, 1.0f / 65535);

  QuantConfig a16 = config_for_scheme(Scheme::kW8A8);
  a16.a16 = {"y"};
  r = quantize_constant({1.0f, 0.3f}, a16);
  EXPECT_EQ(r.e.bitwidth, 16);
  EXPECT_FLOAT_EQ(r.e.scale, 1.0f / 65535);
}

TEST(QuantConstantEncoding, OnGridConstantIsExactAt8BitEvenInTheTail) {
  QuantConfig tail = config_for_scheme(Scheme::kW8A8);
  tail.decode_tail = {"y"};
  ConstantQ r = quantize_constant({0.5f, 1.5f}, tail);
  EXPECT_EQ(r.e.bitwidth, 8);
  EXPECT_EQ(r.e.scale, 0.5f);
  EXPECT_EQ(r.e.zero_point(), 0);
  EXPECT_EQ(r.codes, (std::vector<int64_t>{1, 3}));
}

TEST(QuantConstantEncoding, GridTooWideForInt8GoesTo16BitExactInTheTail) {
  // Symmetric int8 reaches 127 steps: 79.5 / 0.5 = 159 does not fit, int16 does.
  QuantConfig sym = config_for_scheme(Scheme::kW8A8);
  sym.activation_symmetric = true;
  ConstantQ plain = quantize_constant({0.5f, 79.5f}, sym);
  EXPECT_EQ(plain.e.bitwidth, 8);
  EXPECT_FLOAT_EQ(plain.e.scale, 79.5f / 127);
  sym.decode_tail = {"y"};
  ConstantQ tail = quantize_constant({0.5f, 79.5f}, sym);
  EXPECT_EQ(tail.e.bitwidth, 16);
  EXPECT_TRUE(tail.e.is_signed);
  EXPECT_EQ(tail.e.scale, 0.5f);
  EXPECT_EQ(tail.codes, (std::vector<int64_t>{1, 159}));
}

}  // namespace edgeq
