// Exact grids (encode/exact_encoding.h) on hand cases: the DFL integers, strides, the anchor grid,
// negative values, multiples of a decimal step, no grid at all, the storage conventions' limits;
// and weight encodings that keep a max-abs grid when it is exact, take the tensor's grid or the
// channel's own otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "encode/exact_encoding.h"
#include "encode/weight_encoding.h"

namespace edgeq {
namespace {

std::vector<int64_t> codes(const Encoding& e, const std::vector<float>& x) {
  std::vector<int64_t> q;
  for (float v : x) q.push_back(e.quantize(v));
  return q;
}

std::vector<float> range_values(float first, int count) {
  std::vector<float> v;
  for (int i = 0; i < count; ++i) v.push_back(first + static_cast<float>(i));
  return v;
}

}  // namespace

TEST(QuantExactEncoding, DflIntegersGetStepOne) {
  std::vector<float> x = range_values(0.0f, 16);  // 0..15
  auto s8 = exact_encoding(x.data(), x.size(), 8, true);
  ASSERT_TRUE(s8.has_value());
  EXPECT_EQ(s8->scale, 1.0f);
  EXPECT_EQ(s8->zero_point(), 0);
  EXPECT_EQ(s8->dtype(), DType::kInt8);
  EXPECT_TRUE(s8->symmetric);
  EXPECT_EQ(codes(*s8, x),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_TRUE(round_trips(*s8, x.data(), x.size()));
  // Max-abs (scale 15/127) moves them: 1 -> round(8.47) = 8 -> 8 * 15/127 = 0.945.
  Encoding maxabs = encoding_from_range(-15, 15, 8, true);
  EXPECT_FALSE(round_trips(maxabs, x.data(), x.size()));
  EXPECT_NEAR(maxabs.fake_quant(1.0f), 120.0 / 127.0, 1e-6);
}

TEST(QuantExactEncoding, StridesGetStepEight) {
  std::vector<float> x = {8, 8, 8, 16, 16, 32};
  auto u8 = exact_encoding(x.data(), x.size(), 8, false);
  ASSERT_TRUE(u8.has_value());
  EXPECT_EQ(u8->scale, 8.0f);
  EXPECT_EQ(u8->zero_point(), 0);
  EXPECT_EQ(u8->dtype(), DType::kUInt8);
  EXPECT_FALSE(u8->symmetric);
  EXPECT_EQ(codes(*u8, x), (std::vector<int64_t>{1, 1, 1, 2, 2, 4}));
  // From its range [0, 32] (scale 32/255) 8 would become 64 * 32/255 = 8.03.
  EXPECT_FALSE(round_trips(encoding_from_range(0, 32, 8, false), x.data(), x.size()));
}

TEST(QuantExactEncoding, AnchorGridGetsStepHalf) {
  std::vector<float> x = range_values(0.5f, 80);  // 0.5 .. 79.5
  auto u8 = exact_encoding(x.data(), x.size(), 8, false);
  ASSERT_TRUE(u8.has_value());
  EXPECT_EQ(u8->scale, 0.5f);
  EXPECT_EQ(u8->zero_point(), 0);
  EXPECT_EQ(u8->quantize(0.5f), 1);
  EXPECT_EQ(u8->quantize(79.5f), 159);
  EXPECT_TRUE(round_trips(*u8, x.data(), x.size()));
  // Symmetric int8 reaches only 127 steps of 0.5: no exact grid; int16 has room.
  EXPECT_FALSE(exact_encoding(x.data(), x.size(), 8, true).has_value());
  auto s16 = exact_encoding(x.data(), x.size(), 16, true);
  ASSERT_TRUE(s16.has_value());
  EXPECT_EQ(s16->scale, 0.5f);
  EXPECT_EQ(s16->dtype(), DType::kInt16);
}

TEST(QuantExactEncoding, NegativeValuesMoveTheZeroPoint) {
  // Step 0.5: codes -3, 1, 4 relative to zero; uint8 puts -3 at 0, so the zero point is 3.
  std::vector<float> x = {-1.5f, 0.5f, 2.0f};
  auto u8 = exact_encoding(x.data(), x.size(), 8, false);
  ASSERT_TRUE(u8.has_value());
  EXPECT_EQ(u8->scale, 0.5f);
  EXPECT_EQ(u8->zero_point(), 3);
  EXPECT_EQ(codes(*u8, x), (std::vector<int64_t>{0, 4, 7}));
}

TEST(QuantExactEncoding, MultiplesOfTheSmallestMagnitudeAfterRounding) {
  // 0.1f, 0.2f, 0.3f share no power-of-two step short of 2^-27 (codes beyond 16 bit), but they
  // come back from step 0.1f: 0.3f / 0.1f rounds to 3 and 3 * 0.1f rounds to 0.3f.
  std::vector<float> x = {0.1f, 0.2f, 0.3f};
  auto u16 = exact_encoding(x.data(), x.size(), 16, false);
  ASSERT_TRUE(u16.has_value());
  EXPECT_EQ(u16->scale, 0.1f);
  EXPECT_EQ(codes(*u16, x), (std::vector<int64_t>{1, 2, 3}));
}

TEST(QuantExactEncoding, NoGridIsNothing) {
  // 0.3 and 0.7 are no multiples of each other, and their common power-of-two step needs codes
  // of about 2^25.
  std::vector<float> x = {1.0f, 0.3f, 0.7f};
  EXPECT_FALSE(exact_encoding(x.data(), x.size(), 8, false).has_value());
  EXPECT_FALSE(exact_encoding(x.data(), x.size(), 16, true).has_value());
  // -128 does not fit the symmetric int8 grid -127..127, at any step of 1 or coarser.
  std::vector<float> y = {-128.0f, 1.0f};
  EXPECT_FALSE(exact_encoding(y.data(), y.size(), 8, true).has_value());
  EXPECT_FALSE(exact_encoding(y.data(), 0, 8, true).has_value());  // nothing to fit
}

TEST(QuantExactEncoding, AllZeroGetsScaleOne) {
  std::vector<float> x = {0.0f, -0.0f, 0.0f};
  auto u8 = exact_encoding(x.data(), x.size(), 8, false);
  ASSERT_TRUE(u8.has_value());
  EXPECT_EQ(u8->scale, 1.0f);
  EXPECT_EQ(u8->zero_point(), 0);
}

TEST(QuantExactEncoding, NonFiniteValuesAreRefused) {
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> x = {1.0f, bad};
    try {
      exact_encoding(x.data(), x.size(), 8, false);
      FAIL() << "expected an error for " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("at index 1 is not finite"), std::string::npos)
          << e.what();
    }
  }
}

TEST(QuantExactEncoding, WeightsKeepAnExactMaxAbsGrid) {
  // (1, -1, 0): max-abs 1/127 is exact, so it stays, although step 1 (codes +-1) would be too.
  Tensor w = Tensor::from_vector<float>({1, 3}, {1.0f, -1.0f, 0.0f});
  TensorEncoding te = weight_encoding(w, true, 0, 8, "w");
  ASSERT_EQ(te.channels.size(), 1u);
  EXPECT_EQ(te.channels[0].scale, encoding_from_range(-1, 1, 8, true).scale);
  EXPECT_EQ(quantize_tensor(w, te).to_ints(), (std::vector<int64_t>{127, -127, 0}));
}

TEST(QuantExactEncoding, WeightChannelsTakeTheTensorGridThenTheirOwn) {
  // s = 2^-7. Channel 0 (127 s, -64 s) is exact under its max-abs s, which is also the tensor's.
  // Channel 1 (2 s, 4 s): its own max-abs 4s/127 moves 2 s (63.5 -> 64); the tensor's s is exact
  // (and finer than the channel's own grid 2 s).
  const float s = 1.0f / 128;
  Tensor w = Tensor::from_vector<float>({2, 4}, {127 * s, -64 * s, 0, 0, 2 * s, 4 * s, 0, 0});
  TensorEncoding te = weight_encoding(w, true, 0, 8, "w");
  ASSERT_EQ(te.channels.size(), 2u);
  EXPECT_EQ(te.channels[0].scale, s);
  EXPECT_EQ(te.channels[1].scale, s);
  EXPECT_EQ(quantize_tensor(w, te).to_ints(), (std::vector<int64_t>{127, -64, 0, 0, 2, 4, 0, 0}));

  // The DFL conv's weight [1, 16, 1, 1] = 0..15: neither max-abs 15/127 is exact nor is there a
  // finer tensor grid; its own step 1 is. Per tensor the same.
  std::vector<float> bins = range_values(0.0f, 16);
  Tensor dfl = Tensor::from_vector<float>({1, 16, 1, 1}, bins);
  for (bool per_channel : {true, false}) {
    TensorEncoding de = weight_encoding(dfl, per_channel, 0, 8, "model.23.dfl.conv.weight");
    ASSERT_EQ(de.channels.size(), 1u);
    EXPECT_EQ(de.channels[0].scale, 1.0f);
    EXPECT_EQ(de.channels[0].zero_point(), 0);
    Tensor back = dequantize_tensor(quantize_tensor(dfl, de), de);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(back.data<float>()[i], bins[i]) << i;
  }
}

}  // namespace edgeq
