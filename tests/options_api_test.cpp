// Inert options and mixed-precision sets through include/edgeq only (edgeq/inert_options.h,
// edgeq/mixed_set.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "edgeq/doctor.h"
#include "edgeq/error.h"
#include "edgeq/inert_options.h"
#include "edgeq/mixed_set.h"
#include "edgeq/quantize.h"
#include "test_util.h"

namespace edgeq {
namespace {

GivenOption spelled(const std::string& name, const std::string& flag) {
  return [name, flag](const std::string& option) { return option == name ? flag : ""; };
}

TEST(InertOptionsApi, RefusesWhatWasGivenWhereItDoesNothing) {
  QuantizeOptions q;
  q.range = RangeMethod::kMinMax;
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(q, spelled("percentile", "--percentile")); }),
            "--percentile does nothing without range percentile");
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(q, spelled("auto_n", "auto_n")); }),
            "auto_n does nothing without auto");
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(q, {}); }), "");
  q.range = RangeMethod::kPercentile;
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(q, spelled("percentile", "--percentile")); }),
            "");
  DoctorOptions d;
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(d, spelled("top_percent", "top_percent")); }),
            "top_percent does nothing without sensitivity");
  d.sensitivity = 4;
  EXPECT_EQ(test::error_of([&] { refuse_inert_given(d, spelled("top_percent", "top_percent")); }),
            "");
}

TEST(MixedSetApi, DoctorSetRoundTrips) {
  DoctorReport rep;
  rep.mixed = {"b"};
  rep.ranking = {{"b", 0.5}, {"a", 0.25}};
  const MixedSet m = mixed_set(rep);
  EXPECT_EQ(m.a16, std::vector<std::string>{"b"});
  ASSERT_EQ(m.ranking.size(), 2u);
  EXPECT_EQ(m.ranking[1].first, "a");
  EXPECT_EQ(m.ranking[1].second, 0.25);
  const std::string path = test::temp_dir("mixed_set_api") + "/m.json";
  save_mixed_set(m, path);
  EXPECT_EQ(load_mixed_set(path), std::set<std::string>{"b"});
  EXPECT_NE(mixed_set_to_json(m).find("\"edgeq-mixed\""), std::string::npos);
  EXPECT_EQ(parse_mixed_set("x\n# c\n y \n", "list"), (std::set<std::string>{"x", "y"}));
  EXPECT_NE(test::error_of([] { parse_mixed_set("{\"a16\": [1]}", "f.json"); }).find("f.json"),
            std::string::npos);
}

}  // namespace
}  // namespace edgeq
