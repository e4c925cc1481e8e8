// core/json_number.h: numbers from files users wrote, refused rather than wrapped or cast
// undefined; every case computed by hand.
#include "core/json_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.h"

namespace edgeq {
namespace {

using nlohmann::json;

template <typename T>
std::string refusal(const json& v) {
  try {
    json_number<T>(v, "x");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(JsonNumber, IntegersInRangeAreRead) {
  EXPECT_EQ(json_number<int>(json::parse("2147483647"), "x"), 2147483647);
  EXPECT_EQ(json_number<int>(json::parse("-2147483648"), "x"), -2147483647 - 1);
  EXPECT_EQ(json_number<int>(json(5), "x"), 5);  // signed storage of a positive value
  EXPECT_EQ(json_number<uint64_t>(json::parse("18446744073709551615"), "x"), UINT64_MAX);
  EXPECT_EQ(json_number<int64_t>(json::parse("-9223372036854775808"), "x"), INT64_MIN);
  EXPECT_EQ(json_number<int>(json::parse("3.0"), "x"), 3);  // a whole float
  EXPECT_EQ(json_number<int64_t>(json::parse("-4e15"), "x"), -4000000000000000);
}

TEST(JsonNumber, IntegersBeyondTheTypeAreRefused) {
  EXPECT_EQ(refusal<int>(json::parse("4294967304")), "x is out of range: 4294967304");
  EXPECT_EQ(refusal<int>(json(int64_t{5000000000})), "x is out of range: 5000000000");
  EXPECT_EQ(refusal<int>(json::parse("-2147483649")), "x is out of range: -2147483649");
  EXPECT_EQ(refusal<uint64_t>(json::parse("-1")), "x must not be negative: -1");
  EXPECT_EQ(refusal<uint64_t>(json::parse("-1.0")), "x must not be negative: -1.0");
  // 2^64 and 2^31 as floats: one past the type's largest value.
  EXPECT_EQ(refusal<uint64_t>(json::parse("1.8446744073709552e19")),
            "x is out of range: 1.8446744073709552e+19");
  EXPECT_EQ(refusal<int>(json::parse("2147483648.0")), "x is out of range: 2147483648.0");
  EXPECT_EQ(refusal<uint64_t>(json::parse("2.22222e46")), "x is out of range: 2.22222e+46");
  EXPECT_EQ(refusal<int>(json::parse("2.5")), "x must be a whole number, not 2.5");
  EXPECT_EQ(refusal<int>(json(std::nan(""))), "x must be a whole number, not null");
  EXPECT_EQ(refusal<int>(json("7")), "x must be a number, not \"7\"");
}

TEST(JsonNumber, FloatsBeyondFloat32AreRefusedInfinitiesPass) {
  EXPECT_EQ(json_number<float>(json::parse("3.4028234663852886e38"), "x"),
            std::numeric_limits<float>::max());
  EXPECT_EQ(refusal<float>(json::parse("1e300")), "x is out of range: 1e+300");
  EXPECT_TRUE(std::isinf(json_number<float>(json(INFINITY), "x")));
  EXPECT_TRUE(std::isnan(json_number<float>(json(std::nan("")), "x")));
  EXPECT_EQ(json_number<float>(json(7), "x"), 7.0f);
  EXPECT_EQ(json_number<double>(json::parse("1e300"), "x"), 1e300);
}

TEST(JsonNumber, KeyedReadNamesTheKey) {
  const json j = json::parse(R"({"images": 2.5})");
  try {
    json_number_at<int64_t>(j, "images", "stats file s");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stats file s 'images' must be a whole number, not 2.5");
  }
  try {
    json_number_at<int64_t>(j, "count", "stats file s");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stats file s: missing 'count'");
  }
}

}  // namespace
}  // namespace edgeq
