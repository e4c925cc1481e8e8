// QuantizeLinear / DequantizeLinear kernels against hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "runtime/kernel.h"

namespace edgeq {
namespace {

struct Case {
  Node node;
  std::vector<Tensor> inputs;
  int64_t opset = 19;
};

Node make_node(const std::string& op, size_t n_inputs, const std::string& domain = "") {
  Node n;
  n.name = "q";
  n.op_type = op;
  n.domain = domain;
  for (size_t i = 0; i < n_inputs; ++i) n.inputs.push_back("in" + std::to_string(i));
  n.outputs = {"y"};
  return n;
}

void set_int_attr(Node& n, const std::string& key, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  n.attrs[key] = a;
}

Tensor run_case(const Case& c) {
  KernelInit init{c.node, {}, c.opset, Layout::kPlain};
  for (const Tensor& t : c.inputs) init.inputs.push_back({t.dtype(), t.shape(), &t});
  std::unique_ptr<Kernel> k = create_kernel(init);
  const ValueDesc& od = k->outputs.at(0);
  Tensor y(od.dtype, od.shape);
  std::vector<const Tensor*> in;
  for (const Tensor& t : c.inputs) in.push_back(&t);
  k->run(in, {&y});
  return y;
}

Tensor f32(Shape s, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(s), v);
}

}  // namespace

TEST(QuantKernels, QuantizeUint8PerTensorRoundsHalfEvenAndSaturates) {
  Case c{make_node("QuantizeLinear", 3),
         {f32({6}, {0.0f, 1.5f, 2.5f, -1.0f, 300.0f, 0.49f}), Tensor::scalar<float>(1.0f),
          Tensor::scalar<uint8_t>(10)}};
  Tensor y = run_case(c);
  ASSERT_EQ(y.dtype(), DType::kUInt8);
  EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{10, 12, 12, 9, 255, 10}));
}

TEST(QuantKernels, QuantizeInt8) {
  // x / 0.5 = 0.5, 1.5, -200, 200, -2.5 -> 0, 2, -200, 200, -2 -> + (-3), saturated to int8.
  Case c{make_node("QuantizeLinear", 3),
         {f32({5}, {0.25f, 0.75f, -100.0f, 100.0f, -1.25f}), Tensor::scalar<float>(0.5f),
          Tensor::scalar<int8_t>(-3)}};
  Tensor y = run_case(c);
  ASSERT_EQ(y.dtype(), DType::kInt8);
  EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{-3, -1, -128, 127, -5}));
}

TEST(QuantKernels, QuantizeWithoutZeroPointIsUint8) {
  Case c{make_node("QuantizeLinear", 2),
         {f32({3}, {-1.0f, 3.5f, 1000.0f}), Tensor::scalar<float>(1.0f)}};
  Tensor y = run_case(c);
  ASSERT_EQ(y.dtype(), DType::kUInt8);
  EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{0, 4, 255}));
}

TEST(QuantKernels, QuantizeOutputDtypeAttributeOpset21) {
  Case c{make_node("QuantizeLinear", 2),
         {f32({3}, {70000.0f, 1.5f, -2.0f}), Tensor::scalar<float>(1.0f)},
         21};
  set_int_attr(c.node, "output_dtype", 4);  // UINT16
  Tensor y = run_case(c);
  ASSERT_EQ(y.dtype(), DType::kUInt16);
  EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{65535, 2, 0}));
}

TEST(QuantKernels, QuantizeInt16AndUint16) {
  Case s{make_node("QuantizeLinear", 3),
         {f32({3}, {-40000.0f, 40000.0f, 0.7f}), Tensor::scalar<float>(1.0f),
          Tensor::scalar<int16_t>(5)}};
  EXPECT_EQ(run_case(s).to_ints(), (std::vector<int64_t>{-32768, 32767, 6}));
  // Box decode encoding: [-0.6, 80.6] at 16 bit: scale 81.2/65535, zero point 484.
  float scale = 81.2f / 65535.0f;
  Case u{make_node("QuantizeLinear", 3),
         {f32({3}, {0.0f, 80.6f, 90.0f}), Tensor::scalar<float>(scale),
          Tensor::scalar<uint16_t>(484)}};
  std::vector<int64_t> q = run_case(u).to_ints();
  EXPECT_EQ(q[0], 484);
  EXPECT_EQ(q[1], 484 + static_cast<int64_t>(std::nearbyint(80.6f / scale)));
  EXPECT_EQ(q[2], 65535);
}

TEST(QuantKernels, QuantizePerAxis) {
  // [1, 2, 2], axis 1: channel 0 scale 1 zp 0, channel 1 scale 0.25 zp 100.
  Case c{make_node("QuantizeLinear", 3),
         {f32({1, 2, 2}, {1.5f, 2.5f, 1.5f, -30.0f}), f32({2}, {1.0f, 0.25f}),
          Tensor::from_vector<uint8_t>({2}, {0, 100})}};
  set_int_attr(c.node, "axis", 1);
  EXPECT_EQ(run_case(c).to_ints(), (std::vector<int64_t>{2, 2, 106, 0}));
  set_int_attr(c.node, "axis", -2);  // the same axis, counted from the end
  EXPECT_EQ(run_case(c).to_ints(), (std::vector<int64_t>{2, 2, 106, 0}));
}

TEST(QuantKernels, DequantizePerTensorAndPerAxis) {
  Case u{make_node("DequantizeLinear", 3),
         {Tensor::from_vector<uint8_t>({3}, {0, 10, 255}), Tensor::scalar<float>(0.5f),
          Tensor::scalar<uint8_t>(10)}};
  Tensor y = run_case(u);
  ASSERT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_EQ(y.to_floats(), (std::vector<float>{-5.0f, 0.0f, 122.5f}));

  Case s{make_node("DequantizeLinear", 3),
         {Tensor::from_vector<int16_t>({2}, {-32768, 32767}), Tensor::scalar<float>(0.5f),
          Tensor::scalar<int16_t>(-1)}};
  EXPECT_EQ(run_case(s).to_floats(), (std::vector<float>{-16383.5f, 16384.0f}));

  // int32 bias, per channel along axis 0.
  Case b{make_node("DequantizeLinear", 2),
         {Tensor::from_vector<int32_t>({2}, {100, -7}), f32({2}, {0.5f, 0.25f})}};
  set_int_attr(b.node, "axis", 0);
  EXPECT_EQ(run_case(b).to_floats(), (std::vector<float>{50.0f, -1.75f}));

  // int8 weight [2, 1, 1, 2] per output channel.
  Case w{make_node("DequantizeLinear", 3),
         {Tensor::from_vector<int8_t>({2, 1, 1, 2}, {-127, 3, 5, -128}), f32({2}, {0.5f, 2.0f}),
          Tensor::from_vector<int8_t>({2}, {0, 0})}};
  set_int_attr(w.node, "axis", 0);
  EXPECT_EQ(run_case(w).to_floats(), (std::vector<float>{-63.5f, 1.5f, 10.0f, -256.0f}));
}

TEST(QuantKernels, ContribDomainRuns16Bit) {
  ASSERT_NE(find_kernel("com.microsoft", "QuantizeLinear"), nullptr);
  ASSERT_NE(find_kernel("com.microsoft", "DequantizeLinear"), nullptr);
  Case q{make_node("QuantizeLinear", 3, "com.microsoft"),
         {f32({2}, {1.0f, -1.0f}), Tensor::scalar<float>(0.01f), Tensor::scalar<uint16_t>(32768)},
         1};
  Tensor qy = run_case(q);
  ASSERT_EQ(qy.dtype(), DType::kUInt16);
  EXPECT_EQ(qy.to_ints(), (std::vector<int64_t>{32868, 32668}));
  Case d{make_node("DequantizeLinear", 3, "com.microsoft"),
         {qy, Tensor::scalar<float>(0.01f), Tensor::scalar<uint16_t>(32768)},
         1};
  std::vector<float> back = run_case(d).to_floats();
  EXPECT_NEAR(back[0], 1.0f, 1e-6);
  EXPECT_NEAR(back[1], -1.0f, 1e-6);
}

TEST(QuantKernels, LargeInputTakesTheParallelPathWithSameResults) {
  const int64_t n = 300000;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) * 0.5f - 250.0f;
  Case c{make_node("QuantizeLinear", 3),
         {f32({n}, x), Tensor::scalar<float>(1.0f), Tensor::scalar<int8_t>(0)}};
  std::vector<int64_t> q = run_case(c).to_ints();
  for (int64_t i = 0; i < n; ++i) {
    double r = std::nearbyint(static_cast<double>(x[i]));  // half to even
    r = std::min(127.0, std::max(-128.0, r));
    ASSERT_EQ(q[i], static_cast<int64_t>(r)) << i;
  }
}

TEST(QuantKernels, RefusesBadParameters) {
  Case bad_count{make_node("QuantizeLinear", 2), {f32({1, 3}, {1, 2, 3}), f32({2}, {1.0f, 1.0f})}};
  EXPECT_THROW(run_case(bad_count), Error);
  Case blocked{
      make_node("QuantizeLinear", 2), {f32({4}, {1, 2, 3, 4}), Tensor::scalar<float>(1.0f)}, 21};
  set_int_attr(blocked.node, "block_size", 2);
  EXPECT_THROW(run_case(blocked), Error);
  Case zero_scale{make_node("QuantizeLinear", 2), {f32({1}, {1.0f}), Tensor::scalar<float>(0.0f)}};
  EXPECT_THROW(run_case(zero_scale), Error);
  Case int32_zp{make_node("DequantizeLinear", 3),
                {Tensor::from_vector<int32_t>({1}, {5}), Tensor::scalar<float>(1.0f),
                 Tensor::scalar<int32_t>(3)}};
  EXPECT_THROW(run_case(int32_zp), Error);
  Case zp_type{make_node("DequantizeLinear", 3),
               {Tensor::from_vector<uint8_t>({1}, {5}), Tensor::scalar<float>(1.0f),
                Tensor::scalar<int8_t>(3)}};
  EXPECT_THROW(run_case(zp_type), Error);
}

}  // namespace edgeq
