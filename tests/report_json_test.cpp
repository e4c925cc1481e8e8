// The reports' JSON (edgeq/report_json.h), the calibration shard's text form
// (edgeq/calibrate_shard.h) and the ledger's views (edgeq/ledger.h), through the public headers
// only: each equal to what the program writes and prints for the same options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.h"
#include "edgeq/edgeq.h"

namespace edgeq {
namespace {

using test::shell_quote;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::map<std::string, double> metrics(const LedgerRunInfo& r) {
  return {r.metrics.begin(), r.metrics.end()};
}

TEST(ReportJson, ShardTextIsParsedOrRefused) {
  const CalibrationShard s = parse_calibration_shard("1/4");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 4);
  EXPECT_NE(error_of([] { parse_calibration_shard("4/4"); }).find("shard '4/4'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_calibration_shard("two"); }).find("is not of the form i/N"),
            std::string::npos);
}

// calibration_json with indent 2 is the program's --json file (timings aside), and the ledger
// records the same numbers from either.
TEST(ReportJson, CalibrationJsonIsTheProgramsFileAndLedgerRow) {
  const test::CliModelFixture& f = test::cli_model_fixture();
  const std::string dir = f.dir + "/report_json_calibrate";
  std::filesystem::create_directories(dir);
  const test::CliResult cli = test::run_cli(
      "calibrate --model " + shell_quote(f.model) + " --images " + shell_quote(f.images) +
      " --n 2 --seed 3 --out " + shell_quote(dir + "/cli.cbor") + " --json " +
      shell_quote(dir + "/cli.json") + " --ledger " + shell_quote(dir + "/l.sqlite"));
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  CalibrateOptions o;
  o.n = 2, o.seed = 3;
  const Calibration run = calibrate(Model::load(f.model), ImageSource::from_path(f.images), o);
  const std::string text = calibration_json(run, o, f.model, 2);
  auto steady = [](const std::string& j) {
    nlohmann::json out = test::without_timing(nlohmann::json::parse(j));
    out.erase("ms_per_image");
    return out;
  };
  EXPECT_EQ(steady(text), steady(slurp(dir + "/cli.json")));
  EXPECT_EQ(nlohmann::json::parse(text).size(),
            nlohmann::json::parse(slurp(dir + "/cli.json")).size());
  EXPECT_EQ(nlohmann::json::parse(calibration_json(run, o, f.model)), nlohmann::json::parse(text));
  EXPECT_EQ(nlohmann::json::parse(text)["images"], 2);

  Ledger l(dir + "/l.sqlite", true);
  LedgerRecordOptions ro;
  ro.tag = "api";
  const int64_t id = l.record("calibrate", text, ro);
  std::map<std::string, double> a = metrics(l.run(1)), b = metrics(l.run(id));
  for (const char* timing : {"seconds", "ms_per_image", "peak_rss_bytes"})
    a.erase(timing), b.erase(timing);
  EXPECT_EQ(a, b);
}

// quantize_summary_json is what `edgeq quantize --ledger` records; the ledger's views print what
// `edgeq ledger list / show / diff / check` print.
TEST(ReportJson, QuantizeSummaryJsonIsTheProgramsLedgerRowAndViewsAreItsText) {
  const test::CliModelFixture& f = test::cli_model_fixture();
  const std::string dir = f.dir + "/report_json_quantize";
  std::filesystem::create_directories(dir);
  const std::string ledger = dir + "/l.sqlite";
  CalibrateOptions co;
  co.n = 2;
  const Model model = Model::load(f.model);
  const Calibration run = calibrate(model, ImageSource::from_path(f.images), co);
  run.stats.save(dir + "/s.cbor");
  const test::CliResult cli = test::run_cli(
      "quantize --model " + shell_quote(f.model) + " --stats " + shell_quote(dir + "/s.cbor") +
      " --scheme w8a8 --placement qnn --quantize-io in --out " + shell_quote(dir + "/q.onnx") +
      " --ledger " + shell_quote(ledger) + " --tag cli");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;

  QuantizeOptions o;
  o.scheme = Scheme::kW8A8, o.placement = Placement::kQnn, o.quantize_io = QuantizeIo::kIn;
  const QuantizedModel q = quantize(model, run.stats, o);
  const nlohmann::json j = nlohmann::json::parse(quantize_summary_json(q));
  const QuantizeSummary& s = q.summary();
  EXPECT_EQ(j["scheme"], "w8a8");
  EXPECT_EQ(j["placement"], "qnn");
  EXPECT_EQ(j["quantize_io"], "in");
  EXPECT_EQ(j["range"], s.range);
  EXPECT_EQ(j["activations_8bit"], s.activations_8bit);
  EXPECT_EQ(j["activations_16bit"], s.activations_16bit);
  EXPECT_EQ(j["decode_tail_values"], s.decode_tail_values);
  EXPECT_EQ(j.size(), 12u);
  EXPECT_EQ(nlohmann::json::parse(quantize_summary_json(q, 2)), j);
  {
    Ledger w(ledger, true);
    LedgerRecordOptions ro;
    ro.tag = "api";
    EXPECT_EQ(w.record("quantize", quantize_summary_json(q), ro), 2);
  }
  Ledger l(ledger);
  EXPECT_EQ(metrics(l.run(1)), metrics(l.run(2)));
  EXPECT_FALSE(l.run(2).metrics.empty());

  const auto pairs = l.matching_runs("cli", "api");
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].first.id, 1);
  EXPECT_EQ(pairs[0].second.id, 2);
  EXPECT_EQ(pairs[0].first.metrics, pairs[0].second.metrics);

  const std::string file = shell_quote(ledger);
  auto printed = [](const std::string& args) {
    const test::CliResult r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(l.list_text(), printed("ledger list " + file));
  EXPECT_EQ(l.list_text("api"), printed("ledger list " + file + " --tag api"));
  EXPECT_EQ(l.list_text("", "calibrate"), printed("ledger list " + file + " --kind calibrate"));
  EXPECT_EQ(l.show_text(), printed("ledger show " + file));
  EXPECT_EQ(l.show_text("@1"), printed("ledger show " + file + " @1"));
  EXPECT_EQ(l.show_text("cli"), printed("ledger show " + file + " cli"));
  EXPECT_EQ(l.diff_text("cli", "api"), printed("ledger diff " + file + " cli api"));
  EXPECT_EQ(l.diff_text("@1", "@2"), printed("ledger diff " + file + " @1 @2"));
  LedgerCheckOptions limits;
  limits.max_drop = "activations_8bit=0", limits.max_rise = "activations_float=0";
  const LedgerCheck check = l.check("cli", "api", limits);
  EXPECT_EQ(check.regressions, 0u);
  EXPECT_EQ(check.text, printed("ledger check " + file +
                                " --baseline cli --candidate api --max-drop activations_8bit=0 "
                                "--max-rise activations_float=0"));
  EXPECT_NE(l.list_text().find("2 run(s) in"), std::string::npos);
  EXPECT_NE(l.show_text("@2").find("run 2 (quantize), tag api"), std::string::npos);
  EXPECT_NE(error_of([&] { l.show_text("nope"); }).find("(tags: api, cli)"), std::string::npos);
  EXPECT_NE(error_of([&] { l.diff_text("@1", "@9"); }).find("no run @9"), std::string::npos);
}

TEST(ReportJson, LedgerViewsRefuseAnEmptyLedgerAndBadLimits) {
  const std::string dir = test::cli_model_fixture().dir + "/report_json_views";
  std::filesystem::create_directories(dir);
  Ledger l(dir + "/empty.sqlite", true);
  EXPECT_NE(error_of([&] { l.show_text(); }).find("holds no run"), std::string::npos);
  EXPECT_NE(l.list_text().find("0 run(s) in"), std::string::npos);
  LedgerCheckOptions o;
  EXPECT_EQ(error_of([&] { validate_ledger_limits(o); }), "");
  o.max_drop = "latency_ms=1";  // lower is better: its drop is no regression
  EXPECT_NE(error_of([&] { validate_ledger_limits(o, "drops", "rises"); }).find("drops"),
            std::string::npos);
  o = {};
  o.max_rise = "match_rate";
  EXPECT_NE(error_of([&] { validate_ledger_limits(o); }).find("max_rise: expected"),
            std::string::npos);
}

}  // namespace
}  // namespace edgeq
