// The public C++ API (include/edgeq/): the same bytes as the command line for the same options,
// in-memory frames equal to the files they were decoded from, cancellation, errors that name the
// option, and no library message that names a command-line flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <regex>

#include "cli_util.h"
#include "core/file_io.h"
#include "edgeq/edgeq.h"
#include "test_util.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::shell_quote;

// The real model calibrated once on 3 of the 4 train photos, by the API and by the program.
struct ApiFixture {
  std::string dir, model, train, val, cli_stats;
  test::CliResult cli;
};

const ApiFixture& fixture() {
  static const ApiFixture f = [] {
    ApiFixture f;
    f.dir = test::temp_dir("api");
    f.model = test::real_model_path();
    f.train = test::coco8_pose_dir() + "/images/train";
    f.val = test::coco8_pose_dir() + "/images/val";
    f.cli_stats = f.dir + "/cli.cbor";
    f.cli =
        test::run_cli("calibrate --model " + shell_quote(f.model) + " --images " +
                      shell_quote(f.train) + " --n 3 --seed 5 --out " + shell_quote(f.cli_stats));
    return f;
  }();
  return f;
}

CalibrateOptions three_images() {
  CalibrateOptions o;
  o.n = 3;
  o.seed = 5;
  return o;
}

TEST(Api, CalibrationFromFilesAndFromFramesEqualsTheProgram) {
  const ApiFixture& f = fixture();
  ASSERT_EQ(f.cli.exit_code, 0) << f.cli.err;
  const Model m = Model::load(f.model);
  const ImageSource files = ImageSource::from_path(f.train);
  const Calibration api = calibrate(m, files, three_images());
  EXPECT_EQ(api.used, 3u);
  EXPECT_EQ(api.available, 4u);
  api.stats.save(f.dir + "/api.cbor");
  EXPECT_EQ(read_file(f.dir + "/api.cbor"), read_file(f.cli_stats));

  // The same photos decoded by the caller, in the source's order: the same sample, the same bytes.
  std::vector<ImageFrame> frames;
  for (size_t i = 0; i < files.size(); ++i) {
    const cv::Mat bgr = cv::imread(files.name(i), cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty()) << files.name(i);
    ImageFrame fr;
    fr.width = bgr.cols, fr.height = bgr.rows;
    fr.bgr.assign(bgr.data, bgr.data + bgr.total() * 3);
    frames.push_back(std::move(fr));
  }
  const Calibration mem = calibrate(m, ImageSource::from_frames(frames), three_images());
  mem.stats.save(f.dir + "/frames.cbor");
  EXPECT_EQ(read_file(f.dir + "/frames.cbor"), read_file(f.cli_stats));
}

TEST(Api, QuantizeWritesTheBytesTheProgramWrites) {
  const ApiFixture& f = fixture();
  ASSERT_EQ(f.cli.exit_code, 0) << f.cli.err;
  const Model m = Model::load(f.model);
  const CalibrationStats stats = CalibrationStats::load(f.cli_stats);
  struct Case {
    std::string flags;
    std::function<void(QuantizeOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"--scheme w8a8 --range mse --saturation-safe",
       [](QuantizeOptions& o) {
         o.scheme = Scheme::kW8A8, o.range = RangeMethod::kMse, o.saturation_safe = true;
       }},
      // Weight repair (GPTQ, the w8a16 default with images) on 2 sampled validation photos.
      {"--scheme w8a16 --placement qnn --images " + shell_quote(f.val) + " --n 2",
       [&f](QuantizeOptions& o) {
         o.scheme = Scheme::kW8A16, o.placement = Placement::kQnn, o.repair.n = 2;
         o.images = std::make_shared<ImageSource>(ImageSource::from_path(f.val));
       }},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string out = f.dir + "/cli" + std::to_string(i) + ".onnx";
    const test::CliResult r =
        test::run_cli("quantize --model " + shell_quote(f.model) + " --stats " +
                      shell_quote(f.cli_stats) + " " + cases[i].flags + " --out " +
                      shell_quote(out) + " --encodings " + shell_quote(out + ".json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    QuantizeOptions o;
    cases[i].set(o);
    const QuantizedModel q = quantize(m, stats, o);
    EXPECT_EQ(q.bytes(), read_file(out)) << cases[i].flags;
    EXPECT_EQ(q.encodings_json(), read_file(out + ".json")) << cases[i].flags;
    EXPECT_GT(q.summary().activations_8bit + q.summary().activations_16bit, 100u);
  }
}

TEST(Api, ProgressCanCancelCalibrationAndWeightRepair) {
  const ApiFixture& f = fixture();
  ASSERT_EQ(f.cli.exit_code, 0) << f.cli.err;
  const Model m = Model::load(f.model);
  CalibrateOptions c = three_images();
  c.workers = 1;
  size_t steps = 0;
  c.progress = [&steps](const ProgressEvent& e) {
    if (e.kind == ProgressEvent::Kind::kStep && e.done > 0) ++steps;
    return steps < 1;  // stop after the first image
  };
  EXPECT_THROW(calibrate(m, ImageSource::from_path(f.train), c), Cancelled);
  EXPECT_EQ(steps, 1u);

  QuantizeOptions q;
  q.scheme = Scheme::kW8A16;
  q.images = std::make_shared<ImageSource>(ImageSource::from_path(f.val));
  q.repair.n = 2;
  std::vector<std::string> tasks;
  q.progress = [&tasks](const ProgressEvent& e) {
    tasks.push_back(e.task);
    return e.done == 0;  // stop at the first image done
  };
  EXPECT_THROW(quantize(m, CalibrationStats::load(f.cli_stats), q), Cancelled);
  ASSERT_FALSE(tasks.empty());
  EXPECT_EQ(tasks.back(), "weight repair");
}

TEST(Api, ErrorsNameTheOptionNotAFlag) {
  const ApiFixture& f = fixture();
  ASSERT_EQ(f.cli.exit_code, 0) << f.cli.err;
  const Model m = Model::load(f.model);
  const CalibrationStats stats = CalibrationStats::load(f.cli_stats);
  const auto quantize_error = [&](const std::function<void(QuantizeOptions&)>& set) {
    QuantizeOptions o;
    set(o);
    return test::error_of([&] { quantize(m, stats, o); });
  };
  const auto calibrate_error = [&](const std::function<void(CalibrateOptions&)>& set) {
    CalibrateOptions o;
    set(o);
    return test::error_of([&] { calibrate(m, ImageSource::from_path(f.train), o); });
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {quantize_error([](QuantizeOptions& o) { o.saturation_safe = o.reduce_range = true; }),
       "saturation_safe and reduce_range"},
      {quantize_error([](QuantizeOptions& o) { o.scheme = Scheme::kW8A16, o.reduce_range = true; }),
       "reduce_range: scheme w8a16"},
      {quantize_error([](QuantizeOptions& o) { o.repair.cle = true; }), "cle needs images"},
      {quantize_error([](QuantizeOptions& o) { o.search.percent = 10; }), "search needs images"},
      {quantize_error([](QuantizeOptions& o) { o.search.percent = 101; }), "(0, 100]"},
      {quantize_error([](QuantizeOptions& o) {
         o.a16 = {"none", "decode"};
       }),
       "a16: 'none' cannot be combined"},
      {quantize_error([](QuantizeOptions& o) { o.scheme = static_cast<Scheme>(9); }),
       "scheme: no value number 9"},
      {quantize_error([](QuantizeOptions& o) { o.percentile = 20; }),
       "percentile: 20 is outside [50, 100]"},
      {calibrate_error([](CalibrateOptions& o) { o.n = 0; }), "n: 0 is outside [1, 1000000000]"},
      {calibrate_error([](CalibrateOptions& o) { o.shard_index = 2, o.shard_count = 2; }),
       "shard 2/2"},
      {calibrate_error([](CalibrateOptions& o) { o.histogram_stride = 0; }), "histogram_stride"},
  };
  for (const auto& [message, words] : cases) {
    EXPECT_NE(message.find(words), std::string::npos) << message;
    EXPECT_EQ(message.find("--"), std::string::npos) << message;
  }
  ImageFrame bad;
  bad.width = 4, bad.height = 4;
  bad.bgr.resize(10);
  EXPECT_NE(test::error_of([&] { ImageSource::from_frames({bad}); }).find("needs 48 bytes"),
            std::string::npos);
  EXPECT_THROW(ImageSource::from_frames({}), Error);
  EXPECT_THROW(Model::from_bytes("not a model"), Error);
}

TEST(Api, ModelDescribesItsInputsAndOutputs) {
  const Model m = Model::load(test::real_model_path());
  ASSERT_EQ(m.inputs().size(), 1u);
  EXPECT_EQ(m.inputs()[0].name, "images");
  EXPECT_EQ(m.inputs()[0].dtype, "float32");
  EXPECT_EQ(m.inputs()[0].shape, (std::vector<int64_t>{1, 3, 640, 640}));
  ASSERT_FALSE(m.outputs().empty());
  EXPECT_EQ(m.outputs()[0].shape, (std::vector<int64_t>{1, 56, 8400}));
  EXPECT_EQ(Model::from_bytes(m.bytes()).sha256(), m.sha256());
  EXPECT_EQ(m.sha256().size(), 64u);
  EXPECT_NE(m.summary().find("Conv"), std::string::npos);
}

// Session::predict gives what `edgeq run --json` prints for the same photos (the float values as
// JSON prints them), from a path and from a decoded frame alike.
TEST(Api, SessionPredictsWhatRunPrints) {
  const ApiFixture& f = fixture();
  const std::string json = f.dir + "/run.json";
  const test::CliResult r = test::run_cli("run --model " + shell_quote(f.model) + " --image " +
                                          shell_quote(f.val) + " --json " + shell_quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json frames = nlohmann::json::parse(read_file(json));
  ASSERT_EQ(frames.size(), 4u);
  Session session(Model::load(f.model));
  size_t people = 0;
  for (const nlohmann::json& fr : frames) {
    const std::string path = fr["image"];
    const std::vector<Session::Detection> dets = session.predict(path);
    const cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
    ImageFrame frame;
    frame.width = bgr.cols, frame.height = bgr.rows;
    frame.bgr.assign(bgr.data, bgr.data + bgr.total() * 3);
    const std::vector<Session::Detection> from_frame = session.predict(frame);
    ASSERT_EQ(dets.size(), fr["detections"].size()) << path;
    ASSERT_EQ(from_frame.size(), dets.size()) << path;
    for (size_t i = 0; i < dets.size(); ++i) {
      const nlohmann::json& d = fr["detections"][i];
      const Session::Detection& p = dets[i];
      EXPECT_EQ(p.x1, d["box"][0].get<float>());
      EXPECT_EQ(p.y2, d["box"][3].get<float>());
      EXPECT_EQ(p.score, d["score"].get<float>());
      EXPECT_EQ(p.cls, d["class"].get<int>());
      ASSERT_EQ(p.keypoints.size(), 17u);
      EXPECT_EQ(p.keypoints[16].y, d["keypoints"][16][1].get<float>());
      EXPECT_EQ(from_frame[i].x2, p.x2);
      EXPECT_EQ(from_frame[i].keypoints[0].conf, p.keypoints[0].conf);
    }
    people += dets.size();
  }
  EXPECT_GT(people, 5u);
  // Tensors in and out, and the errors of a wrong input.
  std::vector<TensorData> in = {
      {"images", {1, 3, 640, 640}, std::vector<float>(3 * 640 * 640, 0.5f)}};
  const std::vector<TensorData> out = session.run(in);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{1, 56, 8400}));
  in[0].values.resize(10);
  EXPECT_NE(test::error_of([&] { session.run(in); }).find("holds 1228800 values, got 10"),
            std::string::npos);
  EXPECT_THROW(parse<ExecMode>("int4"), Error);  // a struct can no longer hold a bad exec
  SessionOptions avx2;
  avx2.exec.emulate = Int8Emulation::kAvx2;  // without exec int8
  EXPECT_THROW(Session(Model::load(f.model), avx2), Error);
}

// bench's report carries what `edgeq bench --json` writes; the timing fields differ from run to
// run, the rest (model, threads, memory plan, bytes per frame) does not.
TEST(Api, BenchReportsWhatTheProgramWrites) {
  const ApiFixture& f = fixture();
  const std::string json = f.dir + "/bench.json";
  const test::CliResult r = test::run_cli("bench --runs 2 --warmup 0 --threads 1 --model " +
                                          shell_quote(f.model) + " --json " + shell_quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  BenchOptions o;
  o.runs = 2, o.warmup = 0, o.exec.threads = 1, o.profile = true;
  const BenchReport rep = bench(Model::load(f.model), o);
  nlohmann::json got = nlohmann::json::parse(rep.json),
                 expected = nlohmann::json::parse(read_file(json));
  for (const char* timing : {"min_ms", "median_ms", "p95_ms", "throughput_ms_per_run", "plan_ms",
                             "samples_ms", "peak_rss_bytes", "peak"}) {
    EXPECT_TRUE(got.contains(timing) && expected.contains(timing)) << timing;
    got.erase(timing), expected.erase(timing);
  }
  ASSERT_TRUE(got.contains("profile"));  // asked of the API, not of the program
  const nlohmann::json profile = got["profile"];
  got.erase("profile");
  EXPECT_EQ(got, expected);
  EXPECT_EQ(rep.samples_ms.size(), 2u);
  EXPECT_LE(rep.min_ms, rep.median_ms);
  EXPECT_EQ(rep.input_bytes_per_frame, 4 * 3 * 640 * 640);
  EXPECT_FALSE(rep.quantized_io);
  // The profile: every op type once, sorted, and the steps of the whole graph add up to the ops.
  ASSERT_FALSE(rep.ops.empty());
  EXPECT_EQ(rep.ops.front().op, "Conv");
  double ops_ms = 0;
  for (size_t i = 0; i < rep.ops.size(); ++i) {
    ops_ms += rep.ops[i].ms_per_run;
    if (i > 0) {
      EXPECT_GE(rep.ops[i - 1].ms_per_run, rep.ops[i].ms_per_run);
    }
  }
  EXPECT_GT(ops_ms, 0);
  // Every step, slowest first, adding up to the ops; the JSON holds the same.
  double steps_ms = 0;
  for (size_t i = 0; i < rep.steps.size(); ++i) {
    steps_ms += rep.steps[i].ms_per_run;
    if (i > 0) {
      EXPECT_GE(rep.steps[i - 1].ms_per_run, rep.steps[i].ms_per_run);
    }
  }
  EXPECT_GT(rep.steps.size(), 40u);
  EXPECT_NEAR(steps_ms, ops_ms, 1e-9 * ops_ms);
  ASSERT_EQ(profile["steps"].size(), rep.steps.size());
  ASSERT_EQ(profile["ops"].size(), rep.ops.size());
  EXPECT_EQ(profile["steps"][0]["step"], rep.steps[0].step);
  EXPECT_EQ(profile["ops"][0]["op"], "Conv");
  o.profile = false, o.workers = 2;
  const BenchReport two = bench(Model::load(f.model), o);
  EXPECT_EQ(two.workers, 2);
  EXPECT_EQ(two.threads, 1);  // one thread shared by two workers: at least one each
  EXPECT_GT(two.throughput_ms_per_run, 0);
  EXPECT_EQ(nlohmann::json::parse(two.json)["threads_per_worker"], 1);
  o.runs = 0;
  EXPECT_NE(test::error_of([&] { bench(Model::load(f.model), o); }).find("runs: 0 is outside [1, "),
            std::string::npos);
  o.runs = 1, o.workers = 1, o.exec.emulate = Int8Emulation::kAvx2;
  EXPECT_NE(test::error_of([&] { bench(Model::load(f.model), o); }).find("needs exec int8"),
            std::string::npos);
}

// The profile counts the timed runs only: the first run builds the convolutions' primitives
// (JIT code, weight reorders), which warm-up absorbs; counted in, they inflated each step's time
// per run (conv steps by about 2 ms a run on yolo11n-pose at 20 runs). Each timed run's steps
// take part of its wall time, so their sum per run stays within the slowest timed run.
TEST(Api, ProfileCountsTimedRunsOnly) {
  const ApiFixture& f = fixture();
  BenchOptions o;
  o.runs = 2, o.warmup = 1, o.exec.threads = 1, o.profile = true;
  const BenchReport rep = bench(Model::load(f.model), o);
  double steps_ms = 0;
  for (const auto& op : rep.ops) steps_ms += op.ms_per_run;
  const double slowest = *std::max_element(rep.samples_ms.begin(), rep.samples_ms.end());
  EXPECT_GT(steps_ms, 0);
  EXPECT_LE(steps_ms, slowest) << "profiled steps " << steps_ms << " ms a run, slowest run "
                               << slowest << " ms";
}

TEST(Api, CompareReportsWhatTheProgramWrites) {
  const ApiFixture& f = fixture();
  const std::string q = f.dir + "/compare_w8a8.onnx", json = f.dir + "/compare.json";
  QuantizeOptions qo;
  quantize(Model::load(f.model), CalibrationStats::load(f.cli_stats), qo).save(q);
  const test::CliResult r = test::run_cli("compare --quiet --n 2 --ref " + shell_quote(f.model) +
                                          " --test " + shell_quote(q) + " --images " +
                                          shell_quote(f.val) + " --json " + shell_quote(json));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CompareOptions co;
  co.n = 2;
  size_t steps = 0;
  co.progress = [&](const ProgressEvent& e) {
    steps += e.kind == ProgressEvent::Kind::kStep && e.done > 0;
    return true;
  };
  const CompareReport rep = compare(Model::load(f.model), Model::load(q), f.val, co);
  const nlohmann::json expected = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(nlohmann::json::parse(rep.json), expected);
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(rep.images, 2u);
  EXPECT_TRUE(rep.detections && rep.pose && rep.labelled);
  EXPECT_EQ(rep.matched, expected["detections"]["matched"].get<int64_t>());
  EXPECT_LE(rep.matched, rep.ref_detections);
  ASSERT_EQ(rep.outputs.size(), 1u);
  EXPECT_EQ(rep.outputs[0].name, "output0");
  co.conf = 1.5f;
  EXPECT_THROW(compare(Model::load(f.model), Model::load(q), f.val, co), Error);
}

// detect() writes the detections JSON `edgeq run --json` writes, serially and pipelined, with a
// line per frame; a stop flag raised before the first frame stops with nothing but an empty run.
TEST(Api, DetectWritesWhatRunWrites) {
  const ApiFixture& f = fixture();
  const std::string cli_json = f.dir + "/run_cli.json", api_json = f.dir + "/run_api.json";
  const test::CliResult r = test::run_cli("run --model " + shell_quote(f.model) + " --image " +
                                          shell_quote(f.val) + " --json " + shell_quote(cli_json));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  DetectOptions o;
  o.json = api_json;
  std::vector<std::string> lines;
  o.on_frame = [&](const std::string& line) { lines.push_back(line); };
  const DetectReport rep = detect(Model::load(f.model), f.val, o);
  EXPECT_EQ(read_file(api_json), read_file(cli_json));
  EXPECT_EQ(rep.frames, 4u);
  EXPECT_EQ(lines.size(), 4u);
  EXPECT_FALSE(rep.interrupted);
  EXPECT_GT(rep.detections, 0u);
  EXPECT_EQ(nlohmann::json::parse(rep.json)["frames"], 4);
  o.pipeline = true, o.on_frame = nullptr;
  detect(Model::load(f.model), f.val, o);
  EXPECT_EQ(read_file(api_json), read_file(cli_json));
  o.pipeline = false, o.queue = 2;
  EXPECT_NE(test::error_of([&] {
              detect(Model::load(f.model), f.val, o);
            }).find("queue and drop_late apply to the pipeline only"),
            std::string::npos);
  o.queue = 4, o.json = "";
  EXPECT_NE(test::error_of([&] { detect(Model::load(f.model), f.dir + "/none.jpg", o); }), "");
  std::atomic<bool> stop{true};
  o.stop = &stop;
  EXPECT_TRUE(detect(Model::load(f.model), f.val, o).interrupted);
}

// The ledger from the API: bench reports recorded under two tags, read back with their metrics,
// and the gate over them (a 50 % slower candidate fails the default 5 % latency limit; the CLI's
// `ledger check` prints the same table).
TEST(Api, LedgerRecordsReportsAndGatesThem) {
  const ApiFixture& f = fixture();
  const std::string file = f.dir + "/api_ledger.sqlite";
  BenchOptions bo;
  bo.runs = 1, bo.warmup = 0;
  const BenchReport rep = bench(Model::load(f.model), bo);
  nlohmann::json slower = nlohmann::json::parse(rep.json);
  slower["median_ms"] = 1.5 * slower["median_ms"].get<double>();
  {
    Ledger l(file, true);
    LedgerRecordOptions o;
    o.tag = "base", o.model_file = f.model;
    EXPECT_EQ(l.record("bench", rep.json, o), 1);
    o.tag = "next";
    EXPECT_EQ(l.record("bench", slower.dump(), o), 2);
    o.tag = "@3";
    EXPECT_NE(test::error_of([&] { l.record("bench", rep.json, o); }).find("cannot start with @"),
              std::string::npos);
    o.tag = "x";
    EXPECT_NE(test::error_of([&] { l.record("bench", "[1]", o); }).find("must be a JSON object"),
              std::string::npos);
  }
  Ledger l(file);
  ASSERT_EQ(l.runs().size(), 2u);
  EXPECT_EQ(l.tags(), (std::vector<std::string>{"base", "next"}));
  const LedgerRunInfo r = l.run(1);
  EXPECT_EQ(r.kind, "bench");
  EXPECT_EQ(r.model_sha256, Model::load(f.model).sha256());
  auto metric = [](const LedgerRunInfo& run, const std::string& name) {
    for (const auto& [n, v] : run.metrics)
      if (n == name) return v;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(metric(r, "latency_ms"), rep.median_ms);
  EXPECT_DOUBLE_EQ(metric(l.run(2), "latency_ms"), 1.5 * rep.median_ms);
  const LedgerCheck same = l.check("base", "base");
  EXPECT_EQ(same.regressions, 0u);
  const LedgerCheck c = l.check("base", "next");
  EXPECT_EQ(c.regressions, 1u);
  bool latency = false;
  for (const LedgerCheck::Row& row : c.rows)
    if (row.metric == "latency_ms") latency = row.regressed && row.direction == "rise";
  EXPECT_TRUE(latency);
  LedgerCheckOptions loose;
  loose.max_rise = "latency_ms=60%";
  EXPECT_EQ(l.check("base", "next", loose).regressions, 0u);
  loose.max_rise = "latency_ms";
  EXPECT_NE(test::error_of([&] { l.check("base", "next", loose); }).find("max_rise: expected"),
            std::string::npos);
  const test::CliResult cli =
      test::run_cli("ledger check " + shell_quote(file) + " --baseline base --candidate next");
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_EQ(cli.out, c.text);
  EXPECT_THROW(Ledger(f.dir + "/no_such_ledger.sqlite"), Error);
}

// Library code (everything under src/; the command line lives in cli/) names options, never a
// flag: its messages reach Python and C++ users too. Scans every string literal, comments removed.
TEST(LibraryMessages, NameNoCommandLineFlag) {
  const std::regex literal(R"("(?:[^"\\\n]|\\.)*")"), flag(R"(--[a-z])");
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(test::source_dir() + "/src")) {
    const std::string path = e.path().string();
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    std::istringstream in(read_file(path));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const size_t comment = line.find("//");
      const std::string code = line.substr(0, comment);
      for (auto it = std::sregex_iterator(code.begin(), code.end(), literal);
           it != std::sregex_iterator(); ++it)
        if (std::regex_search(it->str(), flag)) found.push_back(path + ":" + std::to_string(n));
    }
  }
  EXPECT_TRUE(found.empty()) << found.size() << " literal(s), e.g. " << found.front();
}

}  // namespace
}  // namespace edgeq
