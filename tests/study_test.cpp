// edgeq study end to end on synthetic models and generated scenes: every (model, arm, scheme) run
// is in data.json and validates against data/study.schema.json; a rerun with nothing changed
// computes nothing, an added scheme computes only its own steps; the HTML page renders in
// headless Chromium without errors and the numbers it shows are data.json's; calibrating once per
// model gives each arm the statistics calibrating the arm itself gives.
#include "edgeq/study.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "calib/calibration_run.h"
#include "calib/stats.h"
#include "cli_util.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "edgeq/bench.h"
#include "edgeq/calibrate.h"
#include "edgeq/quantize.h"
#include "edgeq/report_json.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "json_schema.h"
#include "ledger/sqlite_db.h"
#include "study/study_cache.h"
#include "study/study_calibration.h"
#include "study/study_options.h"
#include "study/study_report.h"
#include "study/study_steps.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::run_cli;

nlohmann::json load_json(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}

// One study computed once for the suite (test::shared_fixture: once per CTest run): two synthetic
// models, three arms, first W8A16 only, then W8A16 + W8A8 (only the new scheme's steps run), then
// the same again (nothing runs). Each run's data.json is kept as first/second/third.json.
struct StudyFixture {
  std::string dir, out;
  nlohmann::json first, second, third;
  test::CliResult r1, r2, r3;
};

void build_study(const std::string& dir) {
  const std::string out = dir + "/out";
  save_onnx(build_yolo11("yolo11n-pose"), dir + "/yolo11n-pose.onnx");
  save_onnx(build_yolo11("yolo11n"), dir + "/yolo11n.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 1);
  write_synthetic_scenes(dir + "/test", 2, 2);
  const std::string base = "study --models '" + dir + "/yolo11n-pose.onnx," + dir +
                           "/yolo11n.onnx' --images '" + dir + "/calib' --test '" + dir +
                           "/test' --bench-runs 1 --bench-warmup 0 --thumbnails 2 --out '" + out +
                           "'";
  const std::string runs[3] = {
      base + " --schemes w8a16",
      base + " --schemes w8a16,w8a8 --ledger '" + dir + "/l.sqlite' --tag two",
      base + " --schemes w8a16,w8a8"};
  const char* names[3] = {"first", "second", "third"};
  for (int k = 0; k < 3; ++k) {
    const test::CliResult r = run_cli(runs[k]);
    test::save_cli_result(r, dir + "/r" + std::to_string(k + 1));
    if (r.exit_code != 0) return;
    fs::copy_file(out + "/data.json", dir + "/" + names[k] + ".json");
  }
}

StudyFixture& fixture() {
  static StudyFixture fx = [] {
    StudyFixture f;
    f.dir = test::shared_fixture("study", build_study);
    f.out = f.dir + "/out";
    test::CliResult* results[3] = {&f.r1, &f.r2, &f.r3};
    nlohmann::json* data[3] = {&f.first, &f.second, &f.third};
    const char* names[3] = {"first", "second", "third"};
    for (int k = 0; k < 3; ++k) {
      const std::string prefix = f.dir + "/r" + std::to_string(k + 1);
      if (!fs::exists(prefix + ".code")) {
        results[k]->exit_code = -1;
        results[k]->err = "not run: an earlier study run failed";
        continue;
      }
      *results[k] = test::load_cli_result(prefix);
      if (results[k]->exit_code == 0) *data[k] = load_json(f.dir + "/" + names[k] + ".json");
    }
    return f;
  }();
  return fx;
}

#define REQUIRE_STUDY(fx)                     \
  ASSERT_EQ(fx.r1.exit_code, 0) << fx.r1.err; \
  ASSERT_EQ(fx.r2.exit_code, 0) << fx.r2.err; \
  ASSERT_EQ(fx.r3.exit_code, 0) << fx.r3.err

TEST(StudyCli, EveryModelArmAndSchemeHasARun) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  const nlohmann::json& d = fx.third;
  ASSERT_EQ(d["runs"].size(), 2u * 3u * 2u);
  std::set<std::string> seen;
  for (const auto& r : d["runs"]) {
    seen.insert(r["model"].get<std::string>() + "/" + r["arm"].get<std::string>() + "/" +
                r["scheme"].get<std::string>());
    const std::string arm = r["arm"];
    if (arm == "A") {
      ASSERT_TRUE(r["metrics"].contains("taps"));
      EXPECT_EQ(r["metrics"]["taps"].size(), 4u);  // layers 4, 6, 8, 10
      EXPECT_EQ(r["metrics"]["outputs"].size(), 8u);
    }
    if (arm == "B") {
      EXPECT_EQ(r["metrics"]["outputs"].size(), 3u);  // P3, P4, P5
    }
    if (arm == "C") {
      ASSERT_TRUE(r["metrics"].contains("detections"));
      const auto& det = r["metrics"]["detections"];
      EXPECT_EQ(det["matched"].get<int>() + det["missing"].get<int>(), det["fp32"].get<int>());
      EXPECT_EQ(det["matched"].get<int>() + det["extra"].get<int>(), det["quantized"].get<int>());
      ASSERT_TRUE(r.contains("per_image"));
      EXPECT_EQ(r["per_image"].size(), 2u);
    }
    // W8A8 runs on edgeq's int8 executor, W8A16 simulated; both measured.
    EXPECT_EQ(r["exec"], r["scheme"] == "w8a8" ? "int8" : "simulate");
    EXPECT_GT(r["latency_ms"]["fp32"].get<double>(), 0);
    EXPECT_GT(r["latency_ms"]["quantized"].get<double>(), 0);
    // The quantized-I/O variant of every arm (quantize_io both): uint8 pixels in (a quarter of
    // the float bytes), uint16 codes out (half), measured on the same executor.
    const auto& q = r["latency"]["quantized"];
    const auto& io = r["latency"]["quantized_io"];
    EXPECT_GT(io["median_ms"].get<double>(), 0);
    EXPECT_EQ(4 * io["input_bytes_per_frame"].get<int64_t>(),
              q["input_bytes_per_frame"].get<int64_t>());
    EXPECT_EQ(2 * io["output_bytes_per_frame"].get<int64_t>(),
              q["output_bytes_per_frame"].get<int64_t>());
    // 8-bit weights are about a quarter of the float ones.
    const double wf = r["weights_bytes"]["fp32"], wq = r["weights_bytes"]["quantized"];
    EXPECT_LT(wq, 0.4 * wf) << r["model"] << " " << r["arm"];
    for (const auto& o : r["metrics"]["outputs"]) {
      EXPECT_GT(o["rel_l2"].get<double>(), 0);
      EXPECT_LT(o["rel_l2"].get<double>(), 1);
    }
  }
  EXPECT_EQ(seen.size(), d["runs"].size());
  // W8A16 is closer to FP32 than W8A8 over each arm's outputs, and on no output more than 5 %
  // further: where both share the 8-bit weights' error (arm A's early taps, on 2 calibration
  // scenes) either can come out a little ahead on one output.
  for (const auto& a : d["runs"])
    for (const auto& b : d["runs"]) {
      if (a["model"] != b["model"] || a["arm"] != b["arm"] || a["scheme"] != "w8a16" ||
          b["scheme"] != "w8a8")
        continue;
      double sum16 = 0, sum8 = 0;
      for (size_t k = 0; k < a["metrics"]["outputs"].size(); ++k) {
        const double e16 = a["metrics"]["outputs"][k]["rel_l2"].get<double>();
        const double e8 = b["metrics"]["outputs"][k]["rel_l2"].get<double>();
        EXPECT_LT(e16, 1.05 * e8) << a["model"] << " arm " << a["arm"] << " output " << k;
        sum16 += e16, sum8 += e8;
      }
      EXPECT_LT(sum16, sum8) << a["model"] << " arm " << a["arm"];
    }
}

// data.json validates against data/study.schema.json; and one benchmark: each latency entry (FP32,
// quantized, quantized I/O) is the public bench's JSON (edgeq::bench, what `edgeq bench --json`
// writes), key for key.
TEST(StudyCli, DataValidatesAgainstTheSchema) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  const nlohmann::json schema = load_json(test::source_dir() + "/data/study.schema.json");
  for (const nlohmann::json* d : {&fx.first, &fx.third}) {
    const auto errors = test::validate_json_schema(schema, *d);
    EXPECT_TRUE(errors.empty()) << errors.size() << " errors, first: " << errors[0];
  }
  // (a study per test process is costly, so the bench keys share the schema test's run)
  BenchOptions b;
  b.runs = 1, b.warmup = 0;
  const nlohmann::json pub =
      nlohmann::json::parse(bench(Model::load(fx.dir + "/yolo11n.onnx"), b).json);
  std::set<std::string> want;
  for (const auto& [k, v] : pub.items()) want.insert(k);
  ASSERT_TRUE(want.count("input_bytes_per_frame") && want.count("weight_bytes"));
  ASSERT_FALSE(fx.third["runs"].empty());
  for (const auto& r : fx.third["runs"])
    for (const char* which : {"fp32", "quantized", "quantized_io"}) {
      ASSERT_TRUE(r["latency"].contains(which)) << which;
      std::set<std::string> got;
      for (const auto& [k, v] : r["latency"][which].items()) got.insert(k);
      EXPECT_EQ(got, want) << r["model"] << " " << r["arm"] << " " << r["scheme"] << " " << which;
    }
  // The study's quantize entry is the summary every front end writes (quantize_summary_json, the
  // program's ledger row and Python's QuantizedModel.summary): the same options on the same model
  // and images give the same JSON.
  const Model model = Model::load(fx.dir + "/yolo11n.onnx");
  const Calibration cal = calibrate(model, ImageSource::from_path(fx.dir + "/calib"));
  QuantizeOptions qo;
  qo.scheme = Scheme::kW8A16, qo.placement = Placement::kQnn;  // the study's target: qnn-htp
  const nlohmann::json api =
      nlohmann::json::parse(quantize_summary_json(quantize(model, cal.stats, qo)));
  int compared = 0;
  for (const auto& r : fx.third["runs"])
    if (r["model"] == "yolo11n" && r["arm"] == "C" && r["scheme"] == "w8a16") {
      EXPECT_EQ(r["quantize"], api);
      ++compared;
    }
  EXPECT_EQ(compared, 1);
}

TEST(StudyCli, SchemaValidatorCatchesViolations) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  const nlohmann::json schema = load_json(test::source_dir() + "/data/study.schema.json");
  nlohmann::json d = fx.third;
  d["runs"][0].erase("latency_ms");
  d["runs"][1]["arm"] = "D";
  d["runs"][2]["metrics"]["outputs"][0]["cosine"] = 3.0;
  d["runs"][3]["findings"]["error"] = -1;
  d["runs"][4]["surprise"] = 1;
  d["inputs"]["models"][0]["sha256"] = "xyz";
  const auto errors = test::validate_json_schema(schema, d);
  ASSERT_EQ(errors.size(), 6u);
  for (const char* what :
       {"/runs/0: missing required 'latency_ms'", "/runs/1/arm", "/runs/2/metrics/outputs/0/cosine",
        "/runs/3/findings/error", "'surprise' is not allowed", "/inputs/models/0/sha256"}) {
    bool found = false;
    for (const std::string& e : errors) found = found || e.find(what) != std::string::npos;
    EXPECT_TRUE(found) << what;
  }
}

TEST(StudyCli, RerunComputesNothingAndANewSchemeOnlyItsSteps) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  const auto& t1 = fx.first["timing"];
  const auto& t2 = fx.second["timing"];
  const auto& t3 = fx.third["timing"];
  EXPECT_EQ(t1["cached_steps"], 0);
  // Per model: calibrate, 3 x (cut, FP32 latency); per run: quantize, compare, doctor, latency.
  EXPECT_EQ(t1["steps"], 2 * (1 + 3 * 2) + 6 * 4);
  EXPECT_EQ(t2["steps"], 2 * (1 + 3 * 2) + 12 * 4);
  EXPECT_EQ(t2["cached_steps"], t1["steps"]);  // only W8A8's 6 x 4 steps ran
  EXPECT_EQ(t3["cached_steps"], t3["steps"]);
  std::printf("study timing: first %.2f s (W8A16), adding W8A8 %.2f s, rerun %.2f s\n",
              t1["seconds"].get<double>(), t2["seconds"].get<double>(),
              t3["seconds"].get<double>());
  EXPECT_LT(t3["seconds"].get<double>(), 0.5 * t1["seconds"].get<double>());
  // The cached runs are the computed ones.
  for (size_t i = 0; i < fx.first["runs"].size(); ++i)
    EXPECT_EQ(fx.first["runs"][i]["metrics"], fx.third["runs"][2 * i]["metrics"]) << "run " << i;
  EXPECT_NE(fx.r3.err.find("cached"), std::string::npos);
  EXPECT_NE(fx.r1.err.find("ETA"), std::string::npos);
}

// Every number the page shows in a table, read off the DOM Chromium rendered, against data.json.
TEST(StudyReport, ChromiumRendersDataJsonNumbersWithoutErrors) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  if (std::system("command -v chromium > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "skipped: chromium is not installed (scripts/setup.sh installs it)";
  const std::string html = fx.out + "/index.html";
  const std::string scratch = test::temp_dir("study_chromium");  // the fixture stays as it is
  const std::string dom = scratch + "/dom.html", log = scratch + "/chromium.log";
  const std::string cmd =
      "chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir='" +
      scratch +
      "/chromium-profile' "
      "--enable-logging=stderr --v=0 --dump-dom 'file://" +
      html + "' > '" + dom + "' 2> '" + log + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(log);
  const std::string text = read_file(dom);
  const std::string errors = read_file(log);
  EXPECT_EQ(errors.find("Uncaught"), std::string::npos) << errors;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("<body[^>]*data-errors=\"(\\d+)\"")));
  EXPECT_EQ(m[1], "0");
  ASSERT_TRUE(std::regex_search(text, m, std::regex("data-rendered=\"(\\d+)\"")));
  const nlohmann::json& runs = fx.third["runs"];
  EXPECT_EQ(std::stoul(m[1]), runs.size());
  EXPECT_EQ(text.find("http://"), std::string::npos);  // nothing fetched from the network
  EXPECT_EQ(text.find("https://"), std::string::npos);

  auto at = [](const nlohmann::json& run, const std::string& path) {
    const nlohmann::json* v = &run;
    std::stringstream ss(path);
    for (std::string k; std::getline(ss, k, '.');) {
      if (v->is_array()) {
        const size_t i = std::stoul(k);
        if (i >= v->size()) return nlohmann::json();
        v = &(*v)[i];
      } else {
        if (!v->contains(k)) return nlohmann::json();
        v = &(*v)[k];
      }
    }
    return *v;
  };
  auto same = [](double shown, double value) {
    return std::fabs(shown - value) <= 1e-3 * std::fabs(value) + 1e-12;
  };
  const std::regex cell("<td data-run=\"(\\d+)\" data-path=\"([^\"]+)\">([^<]*)</td>");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), cell); it != std::sregex_iterator();
       ++it) {
    const nlohmann::json& run = runs.at(std::stoul((*it)[1]));
    const nlohmann::json v = at(run, (*it)[2]);
    const std::string shown = (*it)[3];
    if (v.is_null()) {
      EXPECT_EQ(shown, "-") << (*it)[2];
      continue;
    }
    ASSERT_TRUE(v.is_number()) << (*it)[2];
    EXPECT_TRUE(same(std::stod(shown), v.get<double>()))
        << "run " << (*it)[1] << " " << (*it)[2] << ": page " << shown << ", data " << v;
    ++checked;
  }
  const std::regex agg("<td data-run=\"(\\d+)\" data-agg=\"([^\"]+)\">([^<]*)</td>");
  size_t aggregates = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), agg); it != std::sregex_iterator();
       ++it) {
    const nlohmann::json& outs = runs.at(std::stoul((*it)[1]))["metrics"]["outputs"];
    double v = (*it)[2] == "max_rel_l2" ? 0 : 2;
    for (const auto& o : outs)
      v = (*it)[2] == "max_rel_l2" ? std::max(v, o["rel_l2"].get<double>())
                                   : std::min(v, o["cosine"].get<double>());
    EXPECT_TRUE(same(std::stod((*it)[3]), v)) << (*it)[2] << " run " << (*it)[1];
    ++aggregates;
  }
  // Tables: side by side (2 per run + latency [+ match rate]), taps (12 per arm-A run), outputs
  // (3 per output), detections, latency (8 per run), findings (3 per run).
  EXPECT_GT(checked, runs.size() * 20);
  EXPECT_EQ(aggregates, 2 * runs.size());
  // One caption per thumbnail of each arm-C run, with its detection counts.
  const std::regex cap(
      "<div class=\"cap\" data-run=\"(\\d+)\" data-image=\"(\\d+)\">([^:<]+): "
      "(\\d+) FP32, (\\d+) quant");
  size_t captions = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), cap); it != std::sregex_iterator();
       ++it) {
    const auto& im = runs.at(std::stoul((*it)[1]))["per_image"].at(std::stoul((*it)[2]));
    EXPECT_EQ((*it)[3], im["image"].get<std::string>());
    EXPECT_EQ(std::stoul((*it)[4]), im["fp32"].size());
    EXPECT_EQ(std::stoul((*it)[5]), im["quantized"].size());
    ++captions;
  }
  EXPECT_EQ(captions, 2u * 2u * 2u);  // 2 models x 2 schemes x 2 images
}

TEST(StudyReport, ScriptJsonCannotCloseTheScriptElement) {
  // "</script>" closed the element; "<!--<script>" (a test image named a<!--<script>.jpg) made the
  // parser swallow the rest of the page; U+2028 ends a line in older JavaScript.
  const nlohmann::json j = {{"name", "</script><script>alert(1)</script>"},
                            {"image", "a<!--<script>.jpg & b > c"},
                            {"line", "x\u2028y\u2029z"}};
  const std::string s = json_for_script(j);
  for (const char* bad : {"<", ">", "&", "\u2028", "\u2029"})
    EXPECT_EQ(s.find(bad), std::string::npos) << bad << " in " << s;
  EXPECT_EQ(nlohmann::json::parse(s), j);
}

TEST(StudyCli, BadInputIsOneLineAndWritesNothing) {
  const std::string dir = test::temp_dir("study-bad");
  write_synthetic_scenes(dir + "/img", 1, 0);
  auto r = run_cli("study --models '" + dir + "/missing.onnx' --images '" + dir + "/img' --test '" +
                   dir + "/img' --out '" + dir + "/out'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("models: no such file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out/data.json"));
  save_onnx(build_yolo11("yolo11n"), dir + "/m.onnx");
  r = run_cli("study --models '" + dir + "/m.onnx' --images '" + dir + "/img' --test '" + dir +
              "/img' --schemes w8a4 --out '" + dir + "/out'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("'w8a4' is not a scheme"), std::string::npos) << r.err;
  write_file_atomic(dir + "/study.json", "{\"models\": [\"" + dir + "/m.onnx\"], \"colour\": 1}");
  r = run_cli("study --config '" + dir + "/study.json'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("unknown key 'colour'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out/data.json"));
}

TEST(StudyOptions, SchemesAndConfigKeys) {
  EXPECT_EQ(parse_study_scheme("w8a8-auto10").auto_percent, 10);
  EXPECT_EQ(parse_study_scheme("w8a8-auto10").base, Scheme::kW8A8);
  EXPECT_EQ(parse_study_scheme("w8a16").base, Scheme::kW8A16);
  EXPECT_EQ(parse_study_scheme("w8a16").auto_percent, 0);
  EXPECT_THROW(parse_study_scheme("w8a8-auto0"), Error);
  EXPECT_THROW(parse_study_scheme("w8a8-auto"), Error);
  EXPECT_THROW(parse_study_scheme("w8a16-auto10"), Error);
  const StudyOptions o = study_options_from_json(
      nlohmann::json::parse(R"({"models": "a.onnx,b.onnx", "arms": ["A", "C"], "bench_runs": 3,
                                "target": "cpu"})"));
  EXPECT_EQ(o.models, (std::vector<std::string>{"a.onnx", "b.onnx"}));
  EXPECT_EQ(o.arms, (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(o.bench_runs, 3);
  EXPECT_EQ(study_placement(o), Placement::kCpu);
  EXPECT_THROW(study_options_from_json(nlohmann::json::parse(R"({"bench_runs": "3"})")), Error);
  // Options survive their JSON form.
  EXPECT_EQ(study_options_to_json(study_options_from_json(study_options_to_json(o))),
            study_options_to_json(o));
}

// Calibrating the full model with taps once gives each arm exactly the statistics calibrating the
// arm itself gives (same values, same histograms), recorded for the arm's bytes.
TEST(StudyCalibration, ArmStatsEqualCalibratingTheArm) {
  const std::string dir = test::temp_dir("study-calib");
  const Graph model = build_yolo11("yolo11n-pose");
  std::vector<CalibrationImage> images;
  for (const std::string& p : write_synthetic_scenes(dir, 2, 3)) images.push_back({p, ""});
  CalibrationRunOptions opt;
  opt.calibrator.executor.threads = 1;
  const Graph all = calibration_model(model);
  const Stats stats = calibrate_image_files(all, "all", images, opt).stats;
  for (Arm arm : {Arm::kA, Arm::kB, Arm::kC}) {
    CutSpec spec;
    spec.arm = arm;
    const Graph g = cut_model(model, spec);
    const std::string sha = sha256_hex(serialize_onnx(g));
    const Stats own = calibrate_image_files(g, sha, images, opt).stats;
    const Stats derived = stats_for_arm(stats, g, sha);
    EXPECT_EQ(derived.model_sha256, sha);
    ASSERT_EQ(derived.values.size(), own.values.size()) << std::string(edgeq::name(arm));
    for (const auto& [name, h] : own.values) {
      ASSERT_TRUE(derived.values.count(name)) << name;
      EXPECT_TRUE(derived.values.at(name) == h) << std::string(edgeq::name(arm)) << " " << name;
    }
  }
}

// Every cache entry is verified on reuse: a truncated artifact (cut model, statistics), a
// changed one or a damaged entry is computed again with a warning, never reused.
TEST(StudyCache, DamagedEntriesAreRejectedWithAReason) {
  const std::string dir = test::temp_dir("study-cache-verify");
  StudyCache cache(dir);
  const std::string key = cache_key({"k"});
  write_file_atomic(cache.path("cut", key, ".onnx"), std::string(1000, 'x'));
  cache.save("cut", key, {{"n", 1}}, ".onnx");
  std::string why;
  ASSERT_TRUE(cache.load("cut", key, ".onnx", &why).has_value()) << why;
  EXPECT_EQ(why, "");
  write_file_atomic(cache.path("cut", key, ".onnx"), std::string(999, 'x'));  // truncated
  EXPECT_FALSE(cache.load("cut", key, ".onnx", &why).has_value());
  EXPECT_NE(why.find("999 bytes, 1000 were written"), std::string::npos) << why;
  write_file_atomic(cache.path("cut", key, ".onnx"), std::string(999, 'x') + "y");  // changed
  EXPECT_FALSE(cache.load("cut", key, ".onnx", &why).has_value());
  EXPECT_NE(why.find("SHA-256 differs"), std::string::npos) << why;
  fs::remove(cache.path("cut", key, ".onnx"));
  EXPECT_FALSE(cache.load("cut", key, ".onnx", &why).has_value());
  EXPECT_NE(why.find("missing"), std::string::npos) << why;
  const std::string entry = cache.path("cut", key, ".json");
  // Issue 46: only artifacts were hashed, so an edited result was reused (a number) or aborted
  // the study with a bare nlohmann type_error (a string). Entries are hashed whole now.
  const std::string doctor = cache.path("doctor", key, ".json");
  for (const nlohmann::json& edited : {nlohmann::json(0.25), nlohmann::json("0.5")}) {
    cache.save("doctor", key, {{"rel_l2", 0.5}});
    ASSERT_TRUE(cache.load("doctor", key, "", &why).has_value()) << why;
    nlohmann::json e = nlohmann::json::parse(read_file(doctor));
    e["result"]["rel_l2"] = edited;
    write_file_atomic(doctor, e.dump());
    EXPECT_FALSE(cache.load("doctor", key, "", &why).has_value()) << edited;
    EXPECT_NE(why.find("changed since it was written (SHA-256 differs)"), std::string::npos) << why;
    e.erase("sha256");  // as an older edgeq wrote it
    write_file_atomic(doctor, e.dump());
    EXPECT_FALSE(cache.load("doctor", key, "", &why).has_value());
    EXPECT_NE(why.find("no SHA-256 of the entry recorded"), std::string::npos) << why;
  }
  {  // a key of another type
    nlohmann::json e = nlohmann::json::parse(read_file(doctor));
    e["key"] = 7;
    write_file_atomic(doctor, e.dump());
    EXPECT_FALSE(cache.load("doctor", key, "", &why).has_value());
    EXPECT_NE(why.find("not an entry for this step"), std::string::npos) << why;
  }
  write_file_atomic(entry, read_file(entry).substr(0, 20));  // a truncated entry
  EXPECT_FALSE(cache.load("cut", key, "", &why).has_value());
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(cache.load("cut", cache_key({"other"}), "", &why).has_value());
  EXPECT_EQ(why, "");  // not computed yet: nothing to say
}

TEST(StudyCli, TruncatedCacheEntriesAreComputedAgain) {
  const std::string dir = test::temp_dir("study-cache-truncated");
  save_onnx(build_yolo11("yolo11n-pose", 64), dir + "/m.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 11);
  write_synthetic_scenes(dir + "/test", 1, 12);
  const std::string cmd = "study --models '" + dir + "/m.onnx' --images '" + dir +
                          "/calib' --test '" + dir + "/test' --arms B --schemes w8a16 " +
                          "--bench-runs 1 --bench-warmup 0 --thumbnails 0 --out '" + dir + "/out'";
  auto r = run_cli(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json first = load_json(dir + "/out/data.json");
  int truncated = 0;
  for (const auto& e : fs::directory_iterator(dir + "/out/cache")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("cut-", 0) == 0 && e.path().extension() == ".onnx") {
      fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
      ++truncated;
    }
    if (name.rfind("calibrate-", 0) == 0 && e.path().extension() == ".cbor") {
      fs::resize_file(e.path(), fs::file_size(e.path()) - 1);
      ++truncated;
    }
  }
  ASSERT_EQ(truncated, 2);
  // A compare entry whose numbers were edited: a metric as a string (it aborted the study with a
  // bare nlohmann type_error) and one changed (it was reused).
  int edited = 0;
  for (const auto& e : fs::directory_iterator(dir + "/out/cache")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("compare-", 0) != 0 || e.path().extension() != ".json") continue;
    nlohmann::json j = load_json(e.path().string());
    nlohmann::json& out0 = j["result"]["outputs"][0];
    out0["rel_l2"] = edited++ % 2 ? nlohmann::json(0.0) : nlohmann::json("0.1");
    write_file_atomic(e.path().string(), j.dump());
  }
  ASSERT_GE(edited, 1);
  r = run_cli(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("were written; computing it again"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("changed since it was written (SHA-256 differs); computing it again"),
            std::string::npos)
      << r.err;
  const nlohmann::json second = load_json(dir + "/out/data.json");
  EXPECT_EQ(second["runs"][0]["metrics"], first["runs"][0]["metrics"]);
}

// Test images with the same file name in two folders are two images in the report: names,
// per-image detections and thumbnails are keyed by the path below the test folder (matching by
// file name showed one photo for both).
TEST(StudyCli, TestImagesAreKeyedByTheirPathBelowTheTestFolder) {
  const std::string dir = test::temp_dir("study-names");
  save_onnx(build_yolo11("yolo11n-pose", 64), dir + "/m.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 8);
  const auto a = write_synthetic_scenes(dir + "/test/a", 1, 9);
  const auto b = write_synthetic_scenes(dir + "/test/b", 1, 10);
  ASSERT_EQ(fs::path(a[0]).filename(), fs::path(b[0]).filename());
  const std::string name = fs::path(a[0]).filename().string();
  const auto r = run_cli("study --models '" + dir + "/m.onnx' --images '" + dir +
                         "/calib' --test '" + dir + "/test' --arms C --schemes w8a16 " +
                         "--bench-runs 1 --bench-warmup 0 --thumbnails 2 --out '" + dir + "/out'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json d = load_json(dir + "/out/data.json");
  const nlohmann::json names = nlohmann::json::array({"a/" + name, "b/" + name});
  EXPECT_EQ(d["inputs"]["test_images"]["names"], names);
  ASSERT_EQ(d["runs"].size(), 1u);
  const auto& per = d["runs"][0]["per_image"];
  ASSERT_EQ(per.size(), 2u);
  EXPECT_EQ(per[0]["image"], names[0]);
  EXPECT_EQ(per[1]["image"], names[1]);
  const std::string html = read_file(dir + "/out/index.html");
  EXPECT_NE(html.find("\"name\":\"a/" + name + "\""), std::string::npos);
  EXPECT_NE(html.find("\"name\":\"b/" + name + "\""), std::string::npos);
}

// A w8a8-autoP scheme: the mixed-precision search runs on arm C only (arms A and B are listed as
// skipped), keeps at most P % of the encoded activations at 16 bit (or the base W8A8's 16-bit
// decode tail when that alone is over the budget), and never fewer 16-bit values than the base.
TEST(StudyCli, AutoSchemeRunsOnArmCWithinItsBudget) {
  const std::string dir = test::temp_dir("study-auto");
  save_onnx(build_yolo11("yolo11n-pose"), dir + "/m.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 3);
  write_synthetic_scenes(dir + "/test", 2, 4);
  const auto r =
      run_cli("study --models '" + dir + "/m.onnx' --images '" + dir + "/calib' --test '" + dir +
              "/test' --arms B,C --schemes w8a8,w8a8-auto20 --auto-n 2 " +
              "--bench-runs 1 --bench-warmup 0 --thumbnails 0 --out '" + dir + "/out'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json d = load_json(dir + "/out/data.json");
  const nlohmann::json *base = nullptr, *autop = nullptr;
  for (const auto& run : d["runs"]) {
    EXPECT_FALSE(run["scheme"] == "w8a8-auto20" && run["arm"] != "C") << run["arm"];
    if (run["arm"] != "C") continue;
    if (run["scheme"] == "w8a8") base = &run;
    if (run["scheme"] == "w8a8-auto20") autop = &run;
  }
  ASSERT_TRUE(base && autop);
  ASSERT_EQ(d["skipped"].size(), 1u) << d["skipped"];  // auto20 on arm B
  const nlohmann::json& a = (*autop)["auto"];
  EXPECT_EQ(a["budget_percent"].get<double>(), 20.0);
  EXPECT_EQ(a["images"].get<int>(), 2);
  const int64_t values = a["values"], values16 = a["values_16bit"];
  const int64_t base16 = (*base)["quantize"]["activations_16bit"];
  EXPECT_LE(values16, std::max<int64_t>(values * 20 / 100, base16));
  EXPECT_GE(values16, base16);
  EXPECT_EQ((*autop)["quantize"]["activations_16bit"].get<int64_t>(), values16);
  EXPECT_TRUE((*autop)["metrics"].contains("detections"));
}

// `study --labels` with arms A, B and C (the usage docs/commands.md gives): labels belong to the
// arm whose outputs are detections, so arm C reports mAP for both models and the cut arms A and B,
// whose outputs are features, run without them (before, arm A failed: "labels given but the models
// have no YOLO head output"). A zoo yolo11n-pose at 160 on the coco8-pose photos keeps it quick.
TEST(StudyCli, LabelsGoToTheArmWithDetections) {
  const std::string dir = test::temp_dir("study-labels");
  save_onnx(build_yolo11("yolo11n-pose", 160), dir + "/m.onnx");
  const std::string coco = test::coco8_pose_dir();
  const auto r = run_cli("study --models '" + dir + "/m.onnx' --images '" + coco +
                         "/images/train' --test '" + coco + "/images/val' --labels '" + coco +
                         "/labels/val' --arms A,B,C --schemes w8a16 --bench-runs 1 " +
                         "--bench-warmup 0 --thumbnails 0 --out '" + dir + "/out'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json d = load_json(dir + "/out/data.json");
  ASSERT_EQ(d["runs"].size(), 3u);
  for (const auto& run : d["runs"]) {
    const nlohmann::json& m = run["metrics"];
    if (run["arm"] == "C") {
      ASSERT_TRUE(m.contains("map")) << m.dump();
      for (const char* side : {"fp32", "quantized"}) {
        ASSERT_TRUE(m["map"][side].contains("box_map50_95")) << m["map"].dump();
        const double v = m["map"][side]["box_map50_95"];
        EXPECT_GE(v, 0.0);
        EXPECT_LE(v, 1.0);
      }
    } else {
      EXPECT_FALSE(m.contains("map")) << run["arm"];
      EXPECT_FALSE(m.contains("detections")) << run["arm"];
    }
  }
}

// `study --ledger`: one study row whose gate columns are the worst of data.json's runs (lowest
// match rate, highest box error), and each run's numbers in the generic metrics table.
TEST(StudyCli, LedgerRowHoldsTheWorstRun) {
  StudyFixture& fx = fixture();
  REQUIRE_STUDY(fx);
  EXPECT_NE(fx.r2.err.find("ledger: recorded run 1 (study) tagged 'two'"), std::string::npos)
      << fx.r2.err;
  double lowest_match = 2, highest_box = -1;
  for (const auto& r : fx.second["runs"]) {
    if (!r["metrics"].contains("detections")) continue;
    lowest_match = std::min(lowest_match, r["metrics"]["detections"]["match_rate"].get<double>());
    highest_box = std::max(highest_box, r["metrics"]["detections"]["box_px_mean"].get<double>());
  }
  ASSERT_LE(lowest_match, 1.0) << "no arm C run in the study";
  SqliteDb db(fx.dir + "/l.sqlite", SqliteDb::Mode::kReadOnly);
  SqliteStatement row(db, "SELECT runs, match_rate, box_px_mean FROM study_runs");
  ASSERT_TRUE(row.step());
  EXPECT_EQ(row.integer(0), static_cast<int64_t>(fx.second["runs"].size()));
  EXPECT_DOUBLE_EQ(row.real(1), lowest_match);
  EXPECT_DOUBLE_EQ(row.real(2), highest_box);
  EXPECT_FALSE(row.step());  // one row: the first and third runs had no --ledger
  SqliteStatement per_run(db,
                          "SELECT count(*) FROM metrics WHERE name LIKE 'results.%.rel_l2_max'");
  ASSERT_TRUE(per_run.step());
  EXPECT_EQ(per_run.integer(0), static_cast<int64_t>(fx.second["runs"].size()));
}

}  // namespace
}  // namespace edgeq

namespace edgeq {
namespace {

// edgeq::study (include/edgeq/study.h) and `edgeq study` with the same options write the same
// data.json; the callback sees a step event before each computed step and a line after each
// step, and answering false stops the study with nothing written but the cache.
TEST(StudyApi, WritesWhatTheProgramWritesAndCancels) {
  const std::string dir = test::temp_dir("study_api");
  save_onnx(build_yolo11("yolo11n"), dir + "/yolo11n.onnx");
  write_synthetic_scenes(dir + "/calib", 2, 3);
  write_synthetic_scenes(dir + "/test", 2, 4);
  StudyConfig c;
  c.models = {dir + "/yolo11n.onnx"};
  c.images = dir + "/calib";
  c.test = dir + "/test";
  c.arms = {"C"};
  c.schemes = {"w8a16"};
  c.bench_runs = 1, c.bench_warmup = 0, c.thumbnails = 1;
  c.out = dir + "/cancelled";
  size_t events = 0;
  c.progress = [&](const ProgressEvent& e) { return ++events < 3; };
  EXPECT_THROW(study(c), Cancelled);
  EXPECT_FALSE(fs::exists(c.out + "/data.json"));

  c.out = dir + "/api";
  size_t before = 0, lines = 0;
  c.progress = [&](const ProgressEvent& e) {
    if (e.task == "study") {
      before += e.kind == ProgressEvent::Kind::kStep;
      lines += e.kind == ProgressEvent::Kind::kMessage;
    }
    return true;
  };
  const StudyResult r = study(c);
  EXPECT_EQ(r.runs, 1u);
  EXPECT_EQ(lines, r.steps);
  EXPECT_EQ(before, r.steps - r.cached);
  EXPECT_EQ(r.data_json + "\n", read_file(c.out + "/data.json"));
  EXPECT_TRUE(fs::exists(c.out + "/index.html"));
  EXPECT_EQ(study_config_from_json(study_config_to_json(c)).models, c.models);

  const auto cli =
      run_cli("study --models '" + c.models[0] + "' --images '" + c.images + "' --test '" + c.test +
              "' --arms C --schemes w8a16 --bench-runs 1 --bench-warmup 0 "
              "--thumbnails 1 --out '" +
              dir + "/cli'");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(test::without_timing(load_json(dir + "/cli/data.json")),
            test::without_timing(nlohmann::json::parse(r.data_json)));
  fs::remove_all(dir);
}

// The study quantizes through the same library call as `edgeq quantize`: for the same arm file,
// statistics and options (range, the target's placement, weight repair on the calibration
// sample), its files are the program's, byte for byte.
TEST(StudyQuantize, FilesEqualTheQuantizeCommand) {
  const std::string dir = test::temp_dir("study-quantize");
  const Graph model = build_yolo11("yolo11n-pose");
  std::vector<CalibrationImage> images;
  for (const std::string& p : write_synthetic_scenes(dir + "/calib", 2, 7))
    images.push_back({p, ""});
  CalibrationRunOptions opt;
  opt.calibrator.executor.threads = 1;
  for (Arm arm : {Arm::kB, Arm::kC}) {
    CutSpec spec;
    spec.arm = arm;
    const std::string arm_path = dir + "/arm" + std::string(edgeq::name(arm)) + ".onnx";
    const std::string bytes = serialize_onnx(cut_model(model, spec));
    write_file_atomic(arm_path, bytes);
    const Graph g = parse_onnx(bytes);
    const Stats stats = calibrate_image_files(g, sha256_hex(bytes), images, opt).stats;
    const std::string stats_path = arm_path + ".cbor";
    save_stats(stats, stats_path);
    for (const std::string scheme : {"w8a16", "w8a8"})
      for (const bool repair : {false, true}) {
        if (repair && (arm != Arm::kC || scheme != "w8a16")) continue;
        StudyOptions o;
        o.range = RangeMethod::kMse;
        o.target = "qnn-htp";  // placement auto: qnn
        o.images = dir + "/calib";
        o.calib_n = 2;
        o.weight_repair = repair;
        const std::string study_file = dir + "/study-" + scheme + ".onnx";
        quantize_step(arm_path, CalibrationStats::load(stats_path), parse_study_scheme(scheme), o,
                      study_file);
        const std::string cli_file = dir + "/cli-" + scheme + ".onnx";
        const auto r =
            run_cli("quantize --model '" + arm_path + "' --stats '" + stats_path + "' --scheme " +
                    scheme + " --range mse --placement qnn --out '" + cli_file + "'" +
                    (repair ? " --images '" + dir + "/calib' --n 2" : ""));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(read_file(study_file), read_file(cli_file))
            << "arm " << std::string(edgeq::name(arm)) << " " << scheme
            << (repair ? " with weight repair" : "");
      }
  }
}

}  // namespace
}  // namespace edgeq
