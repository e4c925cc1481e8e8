// quantize --auto (quant/mixed_search.h) on the zoo yolo11n-pose (at 320) over generated scenes:
// the budget holds, blocks are ranked by their own rounding against the all-16-bit floor and taken
// by gain per value, the result does not depend on threads, the chosen set reproduces the model
// through --mixed, and bad input is one clear line with nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.h"
#include "core/file_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

struct AutoFixture {
  std::string dir, model, stats, calib, val;
};

const AutoFixture& fixture() {
  static const AutoFixture f = [] {
    AutoFixture f;
    f.dir = test::temp_dir("quant_auto");
    f.model = f.dir + "/zoo.onnx";
    f.calib = f.dir + "/calib";
    f.val = f.dir + "/val";
    f.stats = f.dir + "/zoo.stats";
    // At 320 (the same weights and blocks as at 640, a quarter of the work per search step).
    EXPECT_EQ(
        test::run_cli("zoo yolo11n-pose --imgsz 320 -o " + test::shell_quote(f.model)).exit_code,
        0);
    EXPECT_EQ(
        test::run_cli("scenes --out " + test::shell_quote(f.calib) + " --n 4 --seed 1").exit_code,
        0);
    EXPECT_EQ(
        test::run_cli("scenes --out " + test::shell_quote(f.val) + " --n 2 --seed 2").exit_code, 0);
    auto c = test::run_cli("calibrate --model " + test::shell_quote(f.model) + " --images " +
                           test::shell_quote(f.calib) + " --out " + test::shell_quote(f.stats));
    EXPECT_EQ(c.exit_code, 0) << c.err;
    return f;
  }();
  return f;
}

std::string base(const AutoFixture& f) {
  return "quantize --model " + test::shell_quote(f.model) + " --stats " +
         test::shell_quote(f.stats) + " --scheme w8a8";
}

}  // namespace

TEST(QuantAuto, BudgetHoldsRankedByOwnRoundingAndThreadsDoNotMatter) {
  const AutoFixture& f = fixture();
  std::string runs[2];
  for (int k = 0; k < 2; ++k) {
    const std::string t = k == 0 ? "1" : "2";
    auto r =
        test::run_cli(base(f) + " --auto 8 --images " + test::shell_quote(f.val) + " --threads " +
                      t + " --auto-out " + test::shell_quote(f.dir + "/set" + t + ".json") +
                      " --auto-log " + test::shell_quote(f.dir + "/log" + t + ".json") + " --out " +
                      test::shell_quote(f.dir + "/a" + t + ".onnx"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("ETA"), std::string::npos) << r.err;  // progress
    runs[k] = read_file(f.dir + "/a" + t + ".onnx");
  }
  EXPECT_TRUE(runs[0] == runs[1]);  // the same model bytes for 1 and 2 threads
  auto log = nlohmann::json::parse(read_file(f.dir + "/log1.json"));
  const size_t values = log.at("values"), values16 = log.at("values_16bit");
  EXPECT_LE(values16, values * 8 / 100);
  const auto& steps = log.at("steps");
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps.at(0).at("phase"), "base");
  // The floor: every value at 16 bit loses less than the W8A8 base.
  ASSERT_EQ(steps.at(1).at("phase"), "floor");
  const double floor = steps.at(1).at("loss_after");
  EXPECT_LT(floor, steps.at(0).at("loss_after").get<double>());
  // Each ranked block: alone at 8 bit, measured against the floor. Its gain per value orders the
  // promotions: the blocks promoted are those with the best gains per value, in that order.
  std::map<std::string, double> gain_per_value;
  std::vector<std::string> promoted;
  size_t ranked = 0;
  for (const auto& s : steps) {
    if (s.at("phase") == "block") {
      ++ranked;
      EXPECT_EQ(s.at("loss_before").get<double>(), floor);
      EXPECT_FALSE(s.at("kept").get<bool>());
      gain_per_value[s.at("tried")] =
          (s.at("loss_after").get<double>() - floor) / s.at("values").get<double>();
    } else if (s.at("phase") == "step") {
      EXPECT_TRUE(s.at("kept").get<bool>());
      promoted.push_back(s.at("tried"));
    }
  }
  EXPECT_GT(ranked, 10u);
  ASSERT_FALSE(promoted.empty());
  double last = 1e300;
  for (const std::string& b : promoted) {
    if (!gain_per_value.count(b)) continue;  // a single value of a block that did not fit
    EXPECT_GT(gain_per_value[b], 0) << b;
    EXPECT_LE(gain_per_value[b], last) << b;
    last = gain_per_value[b];
  }
  EXPECT_EQ(log.at("result").at("loss").get<double>(),
            steps.back().at("metrics").at("loss").get<double>());
  // The chosen set through --mixed gives the same model.
  auto m = test::run_cli(base(f) + " --mixed " + test::shell_quote(f.dir + "/set1.json") +
                         " --out " + test::shell_quote(f.dir + "/m.onnx"));
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_TRUE(read_file(f.dir + "/m.onnx") == runs[0]);
}

TEST(QuantAuto, BadInputIsOneLineAndWritesNothing) {
  const AutoFixture& f = fixture();
  const std::string out = f.dir + "/bad.onnx";
  std::filesystem::create_directories(f.dir + "/empty");
  const std::pair<std::string, std::string> cases[] = {
      {" --auto 150 --images " + test::shell_quote(f.val), "(0, 100]"},
      {" --auto -1 --images " + test::shell_quote(f.val), "(0, 100]"},
      // It used to mean "no search", silently.
      {" --auto 0 --images " + test::shell_quote(f.val), "(0, 100]"},
      // The decode tail the W8A8 default keeps (24 of 364 values on yolo11n-pose) does not fit.
      {" --auto 2 --images " + test::shell_quote(f.val), "the budget must be at least"},
      {" --auto 10", "needs images"},
      {" --auto 10 --images " + test::shell_quote(f.dir + "/empty"), "no images"},
      {" --auto 10 --images " + test::shell_quote(f.dir + "/missing"), "--images"},
      {" --auto-log " + test::shell_quote(f.dir + "/l.json"), "need --auto"},
  };
  for (const auto& [flags, words] : cases) {
    auto r = test::run_cli(base(f) + flags + " --out " + test::shell_quote(out));
    EXPECT_NE(r.exit_code, 0) << flags;
    EXPECT_NE(r.err.find(words), std::string::npos) << flags << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << flags;
  }
  auto w16 = test::run_cli("quantize --model " + test::shell_quote(f.model) + " --stats " +
                           test::shell_quote(f.stats) + " --scheme w8a16 --auto 10 --images " +
                           test::shell_quote(f.val) + " --out " + test::shell_quote(out));
  EXPECT_NE(w16.err.find("scheme w8a16 has none to choose"), std::string::npos) << w16.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace edgeq
