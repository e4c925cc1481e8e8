// Ranges of count, duration and seed options (core/option_range.h), the options that do nothing
// in context, duplicate list items, target tables and the ledger's metric directions (issue 46,
// items 2 and 4): the library's checks, what C++ and Python callers get.
#include "core/option_range.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/op_support.h"
#include "api/inert_options.h"
#include "cli_util.h"
#include "core/comma_list.h"
#include "core/file_io.h"
#include "edgeq/edgeq.h"
#include "encode/encodings_json.h"
#include "ledger/ledger_check.h"
#include "ledger/ledger_metrics.h"
#include "study/study_claims.h"
#include "study/study_options.h"
#include "test_util.h"

namespace edgeq {
namespace {

namespace fs = std::filesystem;

// One line naming the option, the value and the accepted range; never a 300-digit bound.
void expect_message(const std::string& m, const std::string& words) {
  EXPECT_NE(m.find(words), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_LT(m.size(), 160u) << m;
}

TEST(OptionRange, TextIsParsedStrictlyAndCheckedAgainstItsRange) {
  const OptionRange& seed = ranges::kSeed;
  EXPECT_EQ(parse_option<uint64_t>("--seed", "18446744073709551615", seed),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(parse_option<uint64_t>("--seed", "+7", seed), 7u);
  EXPECT_EQ(parse_option<int>("--n", "010", ranges::kImages), 10);  // decimal, not octal 8
  // -1 and 2^64 used to wrap (or saturate) silently into a seed.
  expect_message(test::error_of([&] { parse_option<uint64_t>("--seed", "-1", seed); }),
                 "--seed: -1 is outside [0, 18446744073709551615]");
  expect_message(
      test::error_of([&] { parse_option<uint64_t>("--seed", "18446744073709551616", seed); }),
      "--seed: 18446744073709551616 is outside [0, 18446744073709551615]");
  expect_message(
      test::error_of([&] { parse_option<uint32_t>("--seed", "4294967296", ranges::kSeed32); }),
      "is outside [0, 4294967295]");
  expect_message(test::error_of([&] { parse_option<float>("--conf", "0.5x", ranges::kFraction); }),
                 "--conf: '0.5x' is not a number; expected one in [0, 1]");
  expect_message(test::error_of([&] { parse_option<int>("--n", "2.5", ranges::kImages); }),
                 "--n: '2.5' is not a whole number; expected an integer in [1, 1000000000]");
  expect_message(test::error_of([&] { parse_option<size_t>("--n", "0", ranges::kImages); }),
                 "--n: 0 is outside [1, 1000000000]");
  for (const char* bad : {"", " 1", "1 ", "0x10", "inf", "nan", "1e3", "--", "+", "1,0"})
    EXPECT_NE(test::error_of([&] { parse_option<int>("--n", bad, ranges::kImages); }), "") << bad;
  for (const char* bad : {"inf", "nan", "1e99999", ".", "1e", "0x1p-2"})
    EXPECT_NE(test::error_of([&] { parse_option<double>("--fps", bad, ranges::kFps); }), "") << bad;
  EXPECT_DOUBLE_EQ(parse_option<double>("--fps", "1e1", ranges::kFps), 10.0);
  // The lower end of an open range is refused.
  expect_message(test::error_of([&] { check_option("auto", 0.0, ranges::kBudgetPercent); }),
                 "auto: 0 is outside (0, 100]");
  expect_message(test::error_of([&] { check_option("conf", std::nanf(""), ranges::kFraction); }),
                 "conf: nan is not a number");
}

// Threads go up to 4 per CPU (at least 16): enough for a 2-core machine's 1/2/3-thread
// determinism tests, not the 100000 that crashed (or the 10000 that took 42 s an image).
TEST(OptionRange, ThreadsAreBoundedByTheMachine) {
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(max_threads(), std::max(16, 4 * cpus));
  EXPECT_EQ(check_option("threads", 3, ranges::threads()), 3);
  EXPECT_EQ(check_option("threads", 0, ranges::threads()), 0);
  expect_message(
      test::error_of([] { check_option("threads", 100000, ranges::threads()); }),
      "threads: 100000 is outside [0, " + std::to_string(max_threads()) + "] (0: all cores");
  expect_message(test::error_of([] { check_option("workers", 0, ranges::workers()); }),
                 "workers: 0 is outside [1, ");
  // Every public call that takes threads refuses them before any work.
  const Model m = Model::load(test::real_model_path());
  SessionOptions s;
  s.exec.threads = 100000;
  expect_message(test::error_of([&] { Session(m, s); }), "threads: 100000 is outside");
  BenchOptions b;
  b.exec.threads = 32768;
  expect_message(test::error_of([&] { bench(m, b); }), "threads: 32768 is outside");
  CompareOptions c;
  c.exec.threads = -1;
  expect_message(test::error_of([&] { compare(m, m, "no_such_images", c); }),
                 "threads: -1 is outside");
  CalibrateOptions cal;
  cal.workers = 100000;
  expect_message(
      test::error_of([&] { calibrate(m, ImageSource::from_path(test::coco8_pose_dir()), cal); }),
      "workers: 100000 is outside");
  QuantizeOptions q;
  q.threads = 100000;
  expect_message(test::error_of([&] { validate(q); }), "threads: 100000 is outside");
}

// A lease is finite and bounded: `--lease inf` spun at 80% CPU and its claim ("inf") blocked every
// other worker forever.
TEST(OptionRange, StudyLeasesAreFiniteAndClaimsFromFarAheadLapse) {
  const std::string dir = test::temp_dir("lease");
  for (double bad : {std::numeric_limits<double>::infinity(), 1e12, 0.5, std::nan("")})
    EXPECT_NE(test::error_of([&] { StepClaims(dir, "0/2", bad); }).find("lease"), std::string::npos)
        << bad;
  StudyConfig config;
  StudyWorkerOptions w;
  w.lease_s = std::numeric_limits<double>::infinity();
  expect_message(test::error_of([&] { study_worker(config, w); }),
                 "lease_s: inf is outside [1, 86400]");
  // Claims an older edgeq wrote with any lease: an expiry no lease can reach counts from the
  // file's time, so another worker takes it over once a lease of its own has passed.
  write_file_atomic(dir + "/far.claim", "0/2\n1e300\n");
  write_file_atomic(dir + "/inf.claim", "0/2\ninf\n");
  const auto old = fs::file_time_type::clock::now() - std::chrono::seconds(10);
  fs::last_write_time(dir + "/far.claim", old);
  fs::last_write_time(dir + "/inf.claim", old);
  StepClaims b(dir, "1/2", 5);
  EXPECT_TRUE(b.try_claim("far"));
  EXPECT_TRUE(b.try_claim("inf"));
  // A live claim of a real lease is still respected.
  write_file_atomic(dir + "/live.claim", "0/2\n" + std::to_string(std::time(nullptr) + 60) + "\n");
  EXPECT_FALSE(b.try_claim("live"));
}

// Every choice of the quantizer names one of its values, checked with the other options, before
// any work (a bad range used to be refused only in the quantizer, after weight repair, and in the
// study after calibrating). The options struct cannot hold a bad name: its string entry points
// (the study's config, target tables) refuse one in one line naming the option and every accepted
// value; a value cast from a number is refused by validate().
TEST(OptionRange, ChoicesAreCheckedBeforeAnyWork) {
  QuantizeOptions q;
  EXPECT_EQ(test::error_of([&] { validate(q); }), "");
  const std::vector<std::pair<std::string, std::function<void(QuantizeOptions&)>>> casts = {
      {"scheme", [](QuantizeOptions& o) { o.scheme = static_cast<Scheme>(9); }},
      {"range", [](QuantizeOptions& o) { o.range = static_cast<RangeMethod>(9); }},
      {"placement", [](QuantizeOptions& o) { o.placement = static_cast<Placement>(9); }},
      {"qdq16", [](QuantizeOptions& o) { o.qdq16 = static_cast<Qdq16>(9); }},
      {"quantize_io", [](QuantizeOptions& o) { o.quantize_io = static_cast<QuantizeIo>(9); }},
  };
  for (const auto& [option, set] : casts) {
    QuantizeOptions o;
    set(o);
    expect_message(test::error_of([&] { validate(o); }), option + ": no value number 9");
  }

  nlohmann::json base;
  base["models"] = std::vector<std::string>{test::real_model_path()};
  base["images"] = base["test"] = test::coco8_pose_dir();
  base["out"] = test::temp_dir("choices-study");
  const auto study_error = [&](const std::string& key, const std::string& value) {
    nlohmann::json j = base;
    j[key] = value;
    return test::error_of([&] { check_study_options(study_config_from_json(j.dump())); });
  };
  EXPECT_EQ(test::error_of([&] { study_config_from_json(R"({"range": "entropy2"})"); }),
            "study config: range: 'entropy2' is not one of minmax, percentile, entropy, mse");
  EXPECT_EQ(test::error_of([&] { study_config_from_json(R"({"placement": "gpu"})"); }),
            "study config: placement: 'gpu' is not one of auto, ort, qnn, cpu");
  // Refused before the images are looked at: the config names none that exist.
  EXPECT_EQ(test::error_of([&] {
              study_config_from_json(R"({"images": "/no/such/images", "range": "max"})");
            }),
            "study config: range: 'max' is not one of minmax, percentile, entropy, mse");
  StudyConfig s = study_config_from_json(R"({"range": "Entropy", "placement": "AUTO"})");
  EXPECT_EQ(s.range, RangeMethod::kEntropy);
  EXPECT_FALSE(s.placement.has_value());
  s = study_config_from_json(R"({"placement": "cpu", "range": "percentile"})");
  EXPECT_EQ(s.placement, Placement::kCpu);
  EXPECT_EQ(s.range, RangeMethod::kPercentile);
  // The JSON form writes the names (auto for no placement) and reads them back.
  const nlohmann::json j = nlohmann::json::parse(study_config_to_json(s));
  EXPECT_EQ(j.at("placement"), "cpu");
  EXPECT_EQ(j.at("range"), "percentile");
  EXPECT_EQ(nlohmann::json::parse(study_config_to_json(StudyConfig{})).at("placement"), "auto");
  EXPECT_EQ(study_error("range", "entropy"), "");
  EXPECT_EQ(study_error("placement", "qnn"), "");
  s = study_config_from_json(R"({"range": "mse"})");
  s.range = static_cast<RangeMethod>(9);
  expect_message(test::error_of([&] { check_study_options(s); }), "range: no value number 9");
}

// Options that do nothing with the others as they are are refused, not ignored.
TEST(OptionRange, OptionsThatDoNothingInContextAreRefused) {
  QuantizeOptions q;
  q.percentile = 99.9;  // range minmax
  expect_message(test::error_of([&] { validate(q); }),
                 "percentile does nothing without range percentile");
  q.range = RangeMethod::kPercentile;
  EXPECT_EQ(test::error_of([&] { validate(q); }), "");
  q = {};
  q.search.n = 4;
  expect_message(test::error_of([&] { validate(q); }), "auto_n does nothing without auto");
  q = {};
  q.repair.n = 4;  // no images: no weight repair
  expect_message(test::error_of([&] { validate(q); }), "repair_n does nothing without weight");
  q = {};
  q.repair.seed = 3;
  expect_message(test::error_of([&] { validate(q); }), "seed does nothing without weight");
  // What a front end that knows what was given refuses: every inert option, set or not.
  q = {};
  std::vector<std::string> names;
  for (const InertOption& o : inert_quantize_options(q)) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"percentile", "auto_n", "repair_n", "seed",
                                             "repair_memory_mib"}));
  q.scheme = Scheme::kW8A16;
  q.images = std::make_shared<ImageSource>(ImageSource::from_path(test::coco8_pose_dir()));
  q.range = RangeMethod::kPercentile;
  q.search.percent = 0;
  names.clear();
  for (const InertOption& o : inert_quantize_options(q)) names.push_back(o.name);
  EXPECT_EQ(names, std::vector<std::string>{"auto_n"});  // w8a16 with images runs GPTQ

  DoctorOptions d;
  d.top_percent = 5;
  expect_message(test::error_of([&] { doctor(Model::load(test::real_model_path()), d); }),
                 "top_percent does nothing without sensitivity");

  StudyConfig s;
  s.val = "somewhere";
  EXPECT_EQ(inert_study_options(s).at(0).name, "val");
  EXPECT_TRUE(inert_study_options(s).at(0).set);
  s.schemes = {"w8a8-auto5"};
  for (const InertOption& o : inert_study_options(s)) EXPECT_NE(o.name, "val");
}

// A list option names each thing once: `study --schemes w8a8,w8a8` ran the scheme twice.
TEST(OptionRange, DuplicateListItemsAreRefused) {
  expect_message(test::error_of([] {
                   check_unique({"w8a8", "w8a16", "w8a8"}, "schemes");
                 }),
                 "schemes: 'w8a8' is given twice");
  EXPECT_EQ(test::error_of([] { check_unique({"a", "b"}, "x"); }), "");
  StudyConfig s;
  s.models = {test::real_model_path()};
  s.images = s.test = test::coco8_pose_dir();
  s.out = test::temp_dir("dup_schemes");
  s.schemes = {"w8a8", "w8a8"};
  expect_message(test::error_of([&] { check_study_options(s); }), "schemes: 'w8a8' is given twice");
  QuantizeOptions q;
  q.a16 = {"decode", "decode"};
  expect_message(test::error_of([&] { validate(q); }), "a16: 'decode' is given twice");
}

// Target tables: every builtin one is valid; a table with an unknown key or value, an empty or
// repeated op list, or an op both unsupported and quantized is refused naming what is wrong.
TEST(OptionRange, TargetTablesAreValidated) {
  for (const char* t : {"qnn-htp", "rknn", "cpu", "cpu-avx2", "openvino"})
    EXPECT_EQ(test::error_of([&] { load_target(t); }), "") << t;
  const std::string ok = R"("target": "t", "kind": "npu", "placement": "qnn")";
  auto error = [&](const std::string& more) {
    return test::error_of([&] { parse_target("{" + ok + ", " + more + "}", "t.json"); });
  };
  EXPECT_EQ(error(R"("quantized": ["Conv"], "unsupported": {"Loop": "no"})"), "");
  expect_message(error(R"("quantized": [])"), "t.json: 'quantized' must be a non-empty list");
  expect_message(error(R"("quantized": ["Conv", "Conv"])"), "'Conv' is listed twice");
  expect_message(error(R"("quantized": ["Conv"], "unsuported": {})"), "unknown key 'unsuported'");
  expect_message(test::error_of([] {
                   parse_target(R"({"target": "t", "kind": "NPU", "quantized": ["Conv"]})", "t");
                 }),
                 "'kind' is 'NPU'; expected one of npu, cpu");
  expect_message(test::error_of([] {
                   parse_target(R"({"target": "t", "placement": "gpu", "quantized": ["Conv"]})",
                                "t");
                 }),
                 "t: 'placement': 'gpu' is not one of ort, qnn, cpu");
  expect_message(error(R"("quantized": ["Conv 2d"])"), "'Conv 2d' is not an op type");
  expect_message(error(R"("quantized": ["Conv"], "unsupported": {"Conv": "no"})"),
                 "'Conv' is unsupported and also listed as quantized");
  expect_message(error(R"("quantized": ["Conv"], "uncertain": {"Div": ""})"), "needs a note");
  expect_message(error(R"("quantized": ["Conv"], "int8_pairs": "sometimes")"),
                 "'int8_pairs' is 'sometimes'");
  // An encodings file with nothing in it judges nothing.
  const std::string e = test::temp_dir("empty_enc") + "/e.json";
  write_file_atomic(e,
                    R"({"version": "1.0.0", "activation_encodings": [], "param_encodings": []})");
  expect_message(test::error_of([&] { load_encodings(e); }), "holds no encoding");
}

// Each ledger metric knows which way is better: `--max-drop latency_ms=1` called a 24 ms
// improvement a regression; a limit given twice was accepted.
TEST(OptionRange, LedgerLimitsKnowWhichWayIsBetter) {
  EXPECT_EQ(metric_better("latency_ms"), Better::kLower);
  EXPECT_EQ(metric_better("match_rate"), Better::kHigher);
  EXPECT_EQ(metric_better("pose_map50_95"), Better::kHigher);
  EXPECT_EQ(metric_better("frames_per_s"), Better::kHigher);
  EXPECT_EQ(metric_better("images"), Better::kNone);
  EXPECT_EQ(metric_better("stages.read.p95_ms"), Better::kLower);  // by its unit
  EXPECT_EQ(metric_better("end_to_end_ms.p50"), Better::kLower);
  EXPECT_EQ(metric_better("labels.test.box.map50"), Better::kHigher);
  auto check = [](const std::string& drop, const std::string& rise) {
    return test::error_of([&] {
      check_limits(parse_limits(drop, "max_drop"), parse_limits(rise, "max_rise"), "max_drop",
                   "max_rise");
    });
  };
  expect_message(check("latency_ms=1", ""),
                 "max_drop: latency_ms is better lower: a drop is an improvement; limit it with "
                 "max_rise");
  expect_message(check("", "match_rate=0.01"), "max_rise: match_rate is better higher");
  expect_message(check("match_rate=0.01,match_rate=0.02", ""),
                 "max_drop: match_rate is limited twice");
  EXPECT_EQ(check("match_rate=0.01,pose_map50_95=0.005", "box_px_mean=0.1,latency_ms=5%"), "");
  EXPECT_EQ(check("images=1", "images=1"), "");  // neither way is better: both limits apply
}

}  // namespace
}  // namespace edgeq
