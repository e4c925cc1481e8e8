// Encoding math: scale / offset for given ranges (hand-computed), rounding, saturation,
// per-channel weights and int32 biases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/encoding.h"
#include "core/error.h"
#include "encode/weight_encoding.h"

namespace edgeq {

TEST(QuantEncoding, AsymmetricUint8HandComputed) {
  // [-1, 3]: scale = 4/255, zero point = round(1 / (4/255)) = round(63.75) = 64.
  Encoding e = encoding_from_range(-1.0, 3.0, 8, false);
  EXPECT_FLOAT_EQ(e.scale, 4.0f / 255.0f);
  EXPECT_EQ(e.zero_point(), 64);
  EXPECT_EQ(e.offset, -64);
  EXPECT_EQ(e.dtype(), DType::kUInt8);
  EXPECT_FALSE(e.is_signed);
  EXPECT_NEAR(e.min, -64.0 * 4.0 / 255.0, 1e-6);
  EXPECT_NEAR(e.max, 191.0 * 4.0 / 255.0, 1e-6);
  EXPECT_EQ(e.qmin(), 0);
  EXPECT_EQ(e.qmax(), 255);
}

TEST(QuantEncoding, RangeIsWidenedToIncludeZero) {
  Encoding pos = encoding_from_range(0.5, 2.0, 8, false);  // -> [0, 2]
  EXPECT_FLOAT_EQ(pos.scale, 2.0f / 255.0f);
  EXPECT_EQ(pos.zero_point(), 0);
  Encoding neg = encoding_from_range(-2.0, -1.0, 8, false);  // -> [-2, 0]
  EXPECT_FLOAT_EQ(neg.scale, 2.0f / 255.0f);
  EXPECT_EQ(neg.zero_point(), 255);
  EXPECT_EQ(neg.offset, -255);
}

TEST(QuantEncoding, Asymmetric16BitBoxRange) {
  // The box decode range of docs/lessons.md, lesson 1: [-0.6, 80.6] at 16 bit.
  Encoding e = encoding_from_range(-0.6, 80.6, 16, false);
  EXPECT_NEAR(e.scale, 81.2 / 65535.0, 1e-9);
  EXPECT_EQ(e.zero_point(), 484);  // 0.6 * 65535 / 81.2 = 484.25
  EXPECT_EQ(e.dtype(), DType::kUInt16);
  EXPECT_EQ(e.qmax(), 65535);
}

TEST(QuantEncoding, SymmetricSignedHandComputed) {
  // int8 symmetric: scale = max(|lo|, |hi|) / 127, zero point 0, AIMET offset -128.
  Encoding e = encoding_from_range(-0.5, 2.0, 8, true);
  EXPECT_FLOAT_EQ(e.scale, 2.0f / 127.0f);
  EXPECT_EQ(e.zero_point(), 0);
  EXPECT_EQ(e.offset, -128);
  EXPECT_TRUE(e.is_signed);
  EXPECT_EQ(e.dtype(), DType::kInt8);
  EXPECT_NEAR(e.min, -128.0 * 2.0 / 127.0, 1e-6);
  EXPECT_NEAR(e.max, 2.0, 1e-6);
  Encoding s16 = encoding_from_range(-3.0, 1.0, 16, true);
  EXPECT_FLOAT_EQ(s16.scale, 3.0f / 32767.0f);
  EXPECT_EQ(s16.offset, -32768);
  EXPECT_EQ(s16.dtype(), DType::kInt16);
}

TEST(QuantEncoding, SymmetricUnsignedUsesMidZeroPoint) {
  Encoding e = encoding_from_range(-1.0, 1.0, 8, true, false);
  EXPECT_FLOAT_EQ(e.scale, 2.0f / 255.0f);
  EXPECT_EQ(e.zero_point(), 128);
}

TEST(QuantEncoding, ZeroPointRoundsHalfToEven) {
  // scale 1: zero point = round(0.5) = 0 and round(1.5) = 2 (ties to even, like numpy).
  Encoding a = encoding_from_range(-0.5, 254.5, 8, false);
  EXPECT_FLOAT_EQ(a.scale, 1.0f);
  EXPECT_EQ(a.zero_point(), 0);
  Encoding b = encoding_from_range(-1.5, 253.5, 8, false);
  EXPECT_EQ(b.zero_point(), 2);
}

TEST(QuantEncoding, QuantizeRoundsHalfToEven) {
  Encoding s = encoding_from_onnx(1.0f, 0, DType::kInt8);
  EXPECT_EQ(s.quantize(0.5f), 0);
  EXPECT_EQ(s.quantize(1.5f), 2);
  EXPECT_EQ(s.quantize(2.5f), 2);
  EXPECT_EQ(s.quantize(-0.5f), 0);
  EXPECT_EQ(s.quantize(-1.5f), -2);
  EXPECT_EQ(s.quantize(-2.5f), -2);
  EXPECT_EQ(s.quantize(2.4999f), 2);
  EXPECT_EQ(s.quantize(2.5001f), 3);
  EXPECT_EQ(round_half_even(3.5), 4);
  EXPECT_EQ(round_half_even(-3.5), -4);
  EXPECT_EQ(round_half_even(4.5), 4);
}

TEST(QuantEncoding, QuantizeSaturates) {
  Encoding u8 = encoding_from_onnx(1.0f, 0, DType::kUInt8);
  EXPECT_EQ(u8.quantize(300.0f), 255);
  EXPECT_EQ(u8.quantize(-5.0f), 0);
  Encoding s8 = encoding_from_onnx(1.0f, 0, DType::kInt8);
  EXPECT_EQ(s8.quantize(200.0f), 127);
  EXPECT_EQ(s8.quantize(-200.0f), -128);
  EXPECT_EQ(s8.quantize(std::numeric_limits<float>::infinity()), 127);
  Encoding u16 = encoding_from_onnx(0.5f, 10, DType::kUInt16);
  EXPECT_EQ(u16.quantize(1e9f), 65535);
  EXPECT_EQ(u16.quantize(-100.0f), 0);
  EXPECT_EQ(u16.quantize(1.0f), 12);
  EXPECT_FLOAT_EQ(u16.dequantize(12), 1.0f);
  Encoding s16 = encoding_from_onnx(1.0f, 0, DType::kInt16);
  EXPECT_EQ(s16.quantize(40000.0f), 32767);
  EXPECT_EQ(s16.quantize(-40000.0f), -32768);
}

TEST(QuantEncoding, FakeQuantOfUint8Range) {
  Encoding e = encoding_from_range(-1.0, 3.0, 8, false);
  // 1.0 / (4/255) = 63.75 -> 64 -> (64 + 64 - 64) ... q = 64 + 64 = 128 -> (128 - 64) * 4/255
  EXPECT_EQ(e.quantize(1.0f), 128);
  EXPECT_NEAR(e.fake_quant(1.0f), 64.0 * 4.0 / 255.0, 1e-6);
  EXPECT_NEAR(e.fake_quant(10.0f), e.max, 1e-6);  // clipped at the top of the range
  EXPECT_NEAR(e.fake_quant(-10.0f), e.min, 1e-6);
  EXPECT_FLOAT_EQ(e.fake_quant(0.0f), 0.0f);  // zero is exact
}

TEST(QuantEncoding, OnnxAndAimetParametersRoundTrip) {
  Encoding u = encoding_from_onnx(0.1f, 128, DType::kUInt8);
  EXPECT_TRUE(u.symmetric);
  EXPECT_EQ(u.offset, -128);
  Encoding a = encoding_from_aimet(8, true, 0.1f, -128);
  EXPECT_TRUE(a.is_signed);
  EXPECT_EQ(a.zero_point(), 0);
  EXPECT_EQ(a.dtype(), DType::kInt8);
  Encoding b = encoding_from_aimet(16, false, 0.01f, -300);
  EXPECT_FALSE(b.is_signed);
  EXPECT_EQ(b.zero_point(), 300);
  EXPECT_NEAR(b.min, -3.0, 1e-6);
  EXPECT_NEAR(b.max, (65535 - 300) * 0.01, 1e-3);
}

TEST(QuantEncoding, DegenerateRangeGetsUnitScale) {
  Encoding e = encoding_from_range(0.0, 0.0, 8, false);
  EXPECT_FLOAT_EQ(e.scale, 1.0f);
  EXPECT_EQ(e.zero_point(), 0);
}

TEST(QuantEncoding, RejectsBadRanges) {
  EXPECT_THROW(encoding_from_range(std::nan(""), 1.0, 8, false), Error);
  EXPECT_THROW(encoding_from_range(0.0, INFINITY, 8, false), Error);
  EXPECT_THROW(encoding_from_range(2.0, 1.0, 8, false), Error);
  EXPECT_THROW(encoding_from_range(0.0, 1.0, 1, false), Error);
  EXPECT_THROW(encoding_from_onnx(0.0f, 0, DType::kUInt8), Error);
  EXPECT_THROW(encoding_from_onnx(1.0f, 300, DType::kUInt8), Error);
  EXPECT_THROW(encoding_from_aimet(8, false, 0.1f, 5), Error);
}

TEST(QuantEncoding, PerChannelWeightsAndBias) {
  // Channel 0: max |w| 127 -> scale 1; channel 1: max |w| 63.5 -> scale 0.5.
  Tensor w = Tensor::from_vector<float>({2, 3}, {127.0f, -3.5f, 2.5f, 63.5f, -1.25f, 0.75f});
  TensorEncoding we = weight_encoding(w, true, 0, 8, "conv.weight");
  ASSERT_EQ(we.channels.size(), 2u);
  EXPECT_EQ(we.axis, 0);
  EXPECT_FLOAT_EQ(we.channels[0].scale, 1.0f);
  EXPECT_FLOAT_EQ(we.channels[1].scale, 0.5f);
  Tensor q = quantize_tensor(w, we);
  ASSERT_EQ(q.dtype(), DType::kInt8);
  std::vector<int64_t> expect = {127, -4, 2, 127, -2, 2};  // -3.5->-4, 2.5->2, -2.5->-2, 1.5->2
  EXPECT_EQ(q.to_ints(), expect);
  Tensor back = dequantize_tensor(q, we);
  std::vector<float> expect_back = {127.0f, -4.0f, 2.0f, 63.5f, -1.0f, 1.0f};
  EXPECT_EQ(back.to_floats(), expect_back);

  // Per tensor: one scale from max |w| = 127.
  TensorEncoding pt = weight_encoding(w, false, 0, 8, "conv.weight");
  ASSERT_EQ(pt.channels.size(), 1u);
  EXPECT_FALSE(pt.per_channel());
  EXPECT_EQ(quantize_tensor(w, pt).to_ints(), (std::vector<int64_t>{127, -4, 2, 64, -1, 1}));

  // Bias: scale = input scale 0.5 * weight scale -> [0.5, 0.25]; 2.5 -> 2, -1.5 -> -2.
  Encoding in = encoding_from_onnx(0.5f, 0, DType::kUInt8);
  TensorEncoding be = bias_encoding(in, we, 2);
  ASSERT_EQ(be.channels.size(), 2u);
  EXPECT_FLOAT_EQ(be.channels[0].scale, 0.5f);
  EXPECT_FLOAT_EQ(be.channels[1].scale, 0.25f);
  EXPECT_EQ(be.channels[0].dtype(), DType::kInt32);
  EXPECT_EQ(be.channels[0].zero_point(), 0);
  Tensor b = Tensor::from_vector<float>({2}, {1.25f, -0.375f});
  EXPECT_EQ(quantize_tensor(b, be).to_ints(), (std::vector<int64_t>{2, -2}));
}

TEST(QuantEncoding, PerChannelOnOtherAxisAndZeroChannel) {
  // Axis 1 of a [2, 2] tensor; channel 1 is all zero and gets scale 1 instead of 0. Channel 0
  // (1.27, -0.634) lies on no exact grid (0.634 is no divisor of 1.27), so max-abs stays:
  // -0.634 / 0.01 = -63.4 -> -63.
  Tensor w = Tensor::from_vector<float>({2, 2}, {1.27f, 0.0f, -0.634f, 0.0f});
  TensorEncoding we = weight_encoding(w, true, 1, 8, "w");
  ASSERT_EQ(we.channels.size(), 2u);
  EXPECT_NEAR(we.channels[0].scale, 0.01f, 1e-9);
  EXPECT_FLOAT_EQ(we.channels[1].scale, 1.0f);
  EXPECT_EQ(quantize_tensor(w, we).to_ints(), (std::vector<int64_t>{127, 0, -63, 0}));
}

TEST(QuantEncoding, WeightWithNaNIsRefusedByName) {
  Tensor w = Tensor::from_vector<float>({2}, {1.0f, std::nanf("")});
  try {
    weight_encoding(w, false, 0, 8, "model.3.conv.weight");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.3.conv.weight"), std::string::npos);
  }
}

}  // namespace edgeq
