#include "study/study_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "calib/calibration_images.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/progress.h"
#include "core/progress_reporter.h"
#include "core/sha256.h"
#include "edgeq/arm_stats.h"
#include "edgeq/calibrate.h"
#include "edgeq/model.h"
#include "eval/label_source.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "study/study_cache.h"
#include "study/study_calibration.h"
#include "study/study_claims.h"
#include "study/study_probe.h"
#include "study/study_progress.h"
#include "study/study_report.h"
#include "study/study_steps.h"
#include "vision/image_io.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Bump when a step's result changes meaning, so old cache entries are not reused.
// 2: artifacts recorded by size and hash; 3: entries by their SHA-256 (results too).
const std::string kCacheVersion = "study-cache-4";
// The latency steps' entries are the public bench's JSON (edgeq/bench.h) since this version.
const std::string kBenchVersion = "bench-json-2";

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool applicable(const StudyScheme& s, Arm arm, std::string* why) {
  if (s.auto_percent > 0 && arm != Arm::kC) {
    *why = "the mixed-precision search judges detections: arm C only";
    return false;
  }
  return true;
}

// Everything one model's steps share: the model, its calibration, its arms.
struct ModelState {
  std::string name, path, sha;
  std::optional<Graph> graph;  // loaded when a step needs it
  std::string calib_key, stats_path;
  std::optional<CalibrationStats> stats;  // calibration stats, loaded when a step needs them
  const Graph& model() {
    if (!graph) graph = load_onnx(path);
    return *graph;
  }
  const CalibrationStats& all_stats() {
    if (!stats) stats = CalibrationStats::load(stats_path);
    return *stats;
  }
};

struct ArmState {
  Arm arm;
  std::string path, sha, id;  // id: the cut step's
  nlohmann::json cut;
  std::optional<Graph> graph;
  std::optional<CalibrationStats> stats;
  const Graph& g() {
    if (!graph) graph = load_onnx(path);
    return *graph;
  }
  const CalibrationStats& arm_stats(ModelState& m) {
    if (!stats) stats = stats_for_arm(m.all_stats(), Model::load(path));
    return *stats;
  }
};

// A worker met a step another live worker holds: the steps that read it wait for a later pass.
struct StepBusy {};

// A step's id: its cache entry's name.
std::string step_id(const std::string& kind, const std::string& key) {
  return kind + "-" + key.substr(0, 20);
}

class StudyRunner {
 public:
  StudyRunner(const StudyOptions& o, const StudyRole& role)
      : o_(o), role_(role), reporter_(o.progress), cache_(o.out + "/cache") {}

  StudyRun run();
  StudyWork work();
  nlohmann::json plan();

 private:
  // Runs `compute` unless the cache has the step; reports the step's line. `reads`: the ids of
  // the steps whose results it reads. A worker claims the step first (or throws StepBusy) and
  // leaves latency steps to the collecting run; a plan records the step and computes only cuts.
  nlohmann::json step(const std::string& what, const std::string& kind, const std::string& key,
                      const std::string& artifact_ext, const std::vector<std::string>& reads,
                      const std::function<nlohmann::json()>& compute) {
    const auto t0 = Clock::now();
    std::string rejected;
    std::optional<nlohmann::json> cached = cache_.load(kind, key, artifact_ext, &rejected);
    if (!rejected.empty())
      reporter_.warning("study", "cache entry " + rejected + "; computing it again");
    const std::string id = step_id(kind, key);
    if (role_.kind == StudyRole::kPlan) {  // computes only cuts: later keys read their files
      nlohmann::json j = cached ? *cached : nlohmann::json::object();
      if (!cached && kind == "cut") {
        j = compute();
        cache_.save(kind, key, j, artifact_ext);
      }
      plan_.push_back({{"id", id},
                       {"kind", kind},
                       {"what", what},
                       {"key", key},
                       {"reads", reads},
                       {"cached", cached.has_value() || kind == "cut"}});
      return j;
    }
    if (role_.kind == StudyRole::kWorker)
      return worker_step(what, kind, key, artifact_ext, cached, compute);
    nlohmann::json j;
    if (cached) {
      j = *cached;
      ++result_.cached;
    } else {
      if (progress_) reporter_.step("study", progress_->finished(), progress_->total());
      j = compute();
      cache_.save(kind, key, j, artifact_ext);
    }
    if (progress_)
      reporter_.message("study", progress_->done(what, seconds_since(t0), cached.has_value()));
    return j;
  }

  nlohmann::json worker_step(const std::string& what, const std::string& kind,
                             const std::string& key, const std::string& artifact_ext,
                             const std::optional<nlohmann::json>& cached,
                             const std::function<nlohmann::json()>& compute) {
    if (cached) {
      ++work_.cached;
      return *cached;
    }
    if (kind == "bench") {  // latency is measured alone on the machine, by the collecting run
      ++work_.deferred;
      return nlohmann::json::object();
    }
    const std::string id = step_id(kind, key);
    if (!claims_->try_claim(id)) {
      ++work_.busy;
      throw StepBusy{};
    }
    const auto t0 = Clock::now();
    try {
      reporter_.step("study", work_.computed, 0);  // may cancel
      // Another worker may have finished it between our cache look and our claim.
      std::optional<nlohmann::json> j = cache_.load(kind, key, artifact_ext);
      if (!j) {
        j = compute();
        cache_.save(kind, key, *j, artifact_ext);
        ++work_.computed;
        reporter_.message("study", "worker " + worker_name() + ": " + what + ": " +
                                       format_duration(seconds_since(t0)));
      }
      claims_->release(id);
      return *j;
    } catch (...) {
      claims_->release(id);
      throw;
    }
  }

  std::string worker_name() const {
    return std::to_string(role_.index) + "/" + std::to_string(role_.count);
  }
  void prepare();
  // Every step of every model, arm and scheme, in the order of `models` (rotated by the worker's
  // index, so workers start apart). Returns the models' entries for data.json.
  nlohmann::json traverse(const std::vector<std::string>& models);

  std::vector<std::string> plan_kinds() const;
  void calibrate(ModelState& m);
  ArmState cut(ModelState& m, Arm arm);
  void run_scheme(ModelState& m, ArmState& a, const StudyScheme& s, const nlohmann::json& fp32);

  const StudyOptions& o_;
  StudyRole role_;
  ProgressReporter reporter_;
  std::optional<StepClaims> claims_;
  StudyWork work_;
  nlohmann::json plan_ = nlohmann::json::array();
  StudyCache cache_;
  std::optional<StudyProgress> progress_;
  StudyRun result_;
  // A test image as the report names it: its path below the test folder (a/p.jpg and b/p.jpg
  // are two images; matching them by file name showed one photo for both).
  std::string test_image_key(const std::string& path) const {
    const fs::path rel = fs::path(path).lexically_relative(test_root_);
    return rel.empty() || *rel.begin() == ".." ? fs::path(path).filename().string() : rel.string();
  }

  std::vector<std::string> calib_images_, test_images_;
  std::string test_root_;
  std::string calib_sha_, test_sha_, labels_sha_, val_sha_, probe_sha_, labels_used_;
  std::vector<StudyScheme> schemes_;
  std::vector<Arm> arms_;
  std::optional<ProbeLabels> probe_labels_;
  nlohmann::json runs_ = nlohmann::json::array(), skipped_ = nlohmann::json::array();
};

std::vector<std::string> StudyRunner::plan_kinds() const {
  std::vector<std::string> kinds;
  for (size_t mi = 0; mi < o_.models.size(); ++mi) {
    kinds.push_back("calibrate");
    for (Arm arm : arms_) {
      kinds.push_back("cut");
      kinds.push_back("bench");
      for (const StudyScheme& s : schemes_) {
        std::string why;
        if (!applicable(s, arm, &why)) continue;
        kinds.push_back(s.auto_percent > 0 ? "quantize-auto" : "quantize");
        kinds.push_back("compare");
        kinds.push_back("doctor");
        kinds.push_back("bench");
        if (arm == Arm::kA && probe_labels_) kinds.push_back("probe");
      }
    }
  }
  return kinds;
}

void StudyRunner::calibrate(ModelState& m) {
  m.calib_key =
      cache_key({kCacheVersion, "calibrate", m.sha, calib_sha_, std::to_string(o_.calib_n),
                 std::to_string(o_.seed), std::to_string(o_.histogram_stride)});
  m.stats_path = cache_.path("calibrate", m.calib_key, ".cbor");
  step(m.name + " calibrate (" + std::to_string(calib_images_.size()) + " images)", "calibrate",
       m.calib_key, ".cbor", {}, [&] {
         // Named by the model's path: messages (non-finite weights) name the file given.
         const Model cm = Model::from_bytes(serialize_onnx(calibration_model(m.model())), m.path);
         CalibrateOptions co;
         co.n = o_.calib_n;
         co.seed = o_.seed;
         co.threads = o_.threads;
         co.histogram_stride = o_.histogram_stride;
         // The study's line per step stands for calibration's own steps; its warnings (an
         // unreadable image) are the study's.
         co.progress = [&](const ProgressEvent& e) {
           if (e.kind == ProgressEvent::Kind::kWarning) reporter_.warning("study", e.message);
           return true;
         };
         const Calibration run = edgeq::calibrate(cm, ImageSource::from_path(o_.images), co);
         run.stats.save(m.stats_path);
         return nlohmann::json{{"images", run.used},
                               {"unreadable", run.unreadable},
                               {"values", run.stats.values()},
                               {"seconds", run.seconds}};
       });
}

ArmState StudyRunner::cut(ModelState& m, Arm arm) {
  ArmState a;
  a.arm = arm;
  const std::string arm_text(edgeq::name(arm));
  const std::string key = cache_key({kCacheVersion, "cut", m.sha, arm_text});
  a.path = cache_.path("cut", key, ".onnx");
  a.id = step_id("cut", key);
  a.cut = step(m.name + " arm " + arm_text + " cut", "cut", key, ".onnx", {}, [&] {
    CutSpec spec;
    spec.arm = arm;
    Graph g = cut_model(m.model(), spec);
    const std::string bytes = serialize_onnx(g);
    write_file_atomic(a.path, bytes);
    nlohmann::json outs = nlohmann::json::array();
    for (const auto& out : g.outputs) outs.push_back({{"name", out.name}, {"shape", out.shape}});
    return nlohmann::json{{"sha256", sha256_hex(bytes)},
                          {"nodes", g.nodes.size()},
                          {"outputs", outs},
                          {"weights_bytes", initializer_bytes(g)}};
  });
  a.sha = a.cut.at("sha256").get<std::string>();
  return a;
}

void StudyRunner::run_scheme(ModelState& m, ArmState& a, const StudyScheme& s,
                             const nlohmann::json& fp32_bench) {
  const std::string label = m.name + " arm " + std::string(edgeq::name(a.arm)) + " " + s.name;
  const std::string placement(edgeq::name(study_placement(o_)));
  std::vector<std::string> qparts = {
      kCacheVersion,
      "quantize",
      a.sha,
      m.calib_key,
      s.name,
      placement,
      std::string(edgeq::name(o_.range)),
      s.auto_percent > 0 ? val_sha_ + "/" + std::to_string(o_.auto_n) : ""};
  if (o_.weight_repair)  // reads the calibration images (n, seed) again
    qparts.push_back("repair/" + calib_sha_ + "/" + std::to_string(o_.calib_n) + "/" +
                     std::to_string(o_.seed));
  const std::string qkey = cache_key(qparts);
  const std::string qkind = s.auto_percent > 0 ? "quantize-auto" : "quantize";
  const std::string qpath = cache_.path(qkind, qkey, ".onnx");
  const std::string calib_id = step_id("calibrate", m.calib_key), qid = step_id(qkind, qkey);
  const nlohmann::json quant =
      step(label + " quantize", qkind, qkey, ".onnx", {a.id, calib_id},
           [&] { return quantize_step(a.path, a.arm_stats(m), s, o_, qpath); });
  const int keep = a.arm == Arm::kC ? o_.thumbnails : 0;
  // Labels belong to the arms whose outputs are detections (the full model); a cut arm's
  // features are compared as tensors only.
  const bool detects = yolo_head_output(a.g()).has_value();
  const std::string labels = detects ? o_.labels : "";
  const nlohmann::json cmp = step(
      label + " compare", "compare",
      cache_key({kCacheVersion, "compare", a.sha, qkey, test_sha_, detects ? labels_sha_ : "",
                 std::to_string(keep)}),
      "", {a.id, qid},
      [&] { return compare_step(a.path, qpath, o_.test, labels, o_.test_n, keep, o_.threads); });
  const nlohmann::json doc =
      step(label + " doctor", "doctor", cache_key({kCacheVersion, "doctor", qkey, o_.target}), "",
           {qid, a.id, calib_id}, [&] { return doctor_step(qpath, a.arm_stats(m), o_.target); });
  const ExecMode exec = s.base == Scheme::kW8A8 ? ExecMode::kInt8 : ExecMode::kSimulate;
  const nlohmann::json bench =
      step(label + " latency", "bench",
           cache_key({kCacheVersion, "bench+io", kBenchVersion, qkey,
                      std::string(edgeq::name(exec)), std::to_string(o_.bench_runs),
                      std::to_string(o_.bench_warmup), std::to_string(o_.threads)}),
           "", {qid, a.id, calib_id}, [&] {
             // The outputs' ranges for quantized I/O.
             const CalibrationStats& stats = a.arm_stats(m);
             return bench_step(qpath, exec, o_.bench_runs, o_.bench_warmup, o_.threads, &stats);
           });

  nlohmann::json probe;
  if (a.arm == Arm::kA && probe_labels_) {
    probe = step(label + " probe", "probe",
                 cache_key({kCacheVersion, "probe", a.sha, qkey, probe_sha_, test_sha_,
                            std::to_string(o_.probe_folds), std::to_string(o_.probe_l2)}),
                 "", {a.id, qid}, [&] {
                   return probe_step(a.path, qpath, test_images_, *probe_labels_, o_.probe_folds,
                                     o_.probe_l2, o_.threads);
                 });
  }
  if (role_.kind != StudyRole::kAll) return;  // workers and plans only fill the cache

  nlohmann::json run;
  run["model"] = m.name;
  run["arm"] = std::string(edgeq::name(a.arm));
  run["scheme"] = s.name;
  run["placement"] = quant.at("quantize").at("placement");
  run["exec"] = bench.at("exec");
  nlohmann::json metrics = {{"outputs", cmp.at("outputs")}};
  if (cmp.contains("taps")) metrics["taps"] = cmp.at("taps");
  if (cmp.contains("detections")) metrics["detections"] = cmp.at("detections");
  if (cmp.contains("map")) metrics["map"] = cmp.at("map");
  run["metrics"] = metrics;
  run["latency_ms"] = {{"fp32", fp32_bench.at("median_ms")}, {"quantized", bench.at("median_ms")}};
  nlohmann::json quantized = bench;
  quantized.erase("quantized_io");
  run["latency"] = {{"fp32", fp32_bench}, {"quantized", quantized}};
  if (bench.contains("quantized_io")) run["latency"]["quantized_io"] = bench.at("quantized_io");
  run["weights_bytes"] = {{"fp32", a.cut.at("weights_bytes")},
                          {"quantized", quant.at("weights_bytes")}};
  run["arena_bytes"] = {{"fp32", fp32_bench.at("arena_bytes")},
                        {"quantized", bench.at("arena_bytes")}};
  run["quantize"] = quant.at("quantize");
  if (quant.contains("auto")) run["auto"] = quant.at("auto");
  run["findings"] = doc.at("findings");
  run["top_findings"] = doc.at("top");
  if (cmp.contains("per_image")) {
    nlohmann::json per = cmp.at("per_image");
    for (auto& im : per) {
      im["image"] = test_image_key(im.at("path").get<std::string>());
      im.erase("path");
    }
    run["per_image"] = per;
  }
  if (!probe.is_null()) run["probe"] = probe;
  runs_.push_back(run);
}

void StudyRunner::prepare() {
  check_study_options(o_);
  for (const std::string& s : o_.schemes) schemes_.push_back(parse_study_scheme(s));
  for (const std::string& a : o_.arms) arms_.push_back(parse<Arm>(a, "arms"));
  // Inputs, hashed: every step's key is built from these.
  for (const CalibrationImage& im :
       sample_calibration_images(list_calibration_images(o_.images), o_.calib_n, o_.seed))
    calib_images_.push_back(im.path);
  calib_sha_ = files_sha256(calib_images_);
  test_images_ = expand_image_paths(o_.test);
  if (o_.test_n > 0 && static_cast<int>(test_images_.size()) > o_.test_n)
    test_images_.resize(o_.test_n);
  test_sha_ = files_sha256(test_images_);
  std::error_code ec;
  test_root_ = fs::is_directory(o_.test, ec) ? o_.test : fs::path(o_.test).parent_path().string();
  const LabelSource labels = resolve_label_source(test_root_, test_images_, o_.labels);
  labels_used_ = labels.enabled ? labels.description : "";
  std::vector<std::string> label_parts{labels.enabled ? labels.description : "none"};
  for (const std::string& f : labels.files)
    label_parts.push_back(fs::is_regular_file(f, ec) ? file_sha256(f) : "-");
  labels_sha_ = cache_key(label_parts);
  if (std::any_of(schemes_.begin(), schemes_.end(),
                  [](const StudyScheme& s) { return s.auto_percent > 0; })) {
    std::vector<std::string> val;
    for (const CalibrationImage& im : list_calibration_images(o_.val.empty() ? o_.images : o_.val))
      val.push_back(im.path);
    val_sha_ = files_sha256(val);
  }
  if (!o_.probe_labels.empty()) {
    probe_labels_ = read_probe_labels(o_.probe_labels);
    probe_sha_ = file_sha256(o_.probe_labels);
  }
}

nlohmann::json StudyRunner::traverse(const std::vector<std::string>& model_paths) {
  nlohmann::json models = nlohmann::json::array();
  for (const std::string& path : model_paths) {
    ModelState m;
    m.path = path;
    m.name = fs::path(path).stem().string();
    m.sha = file_sha256(path);
    try {
      calibrate(m);
    } catch (const StepBusy&) {
      continue;  // every quantize step of this model reads the calibration another worker holds
    }
    nlohmann::json entry = {{"name", m.name}, {"path", path}, {"sha256", m.sha}};
    // The model's own description (Ultralytics exports and zoo models carry one): the page shows
    // it, so a synthetic zoo model is marked as such beside a trained one.
    if (auto d = m.model().metadata_value("description")) entry["description"] = *d;
    models.push_back(entry);
    for (Arm arm : arms_) try {
        ArmState a = cut(m, arm);
        const nlohmann::json fp32 = step(
            m.name + " arm " + std::string(edgeq::name(arm)) + " FP32 latency", "bench",
            cache_key({kCacheVersion, "bench", kBenchVersion, a.sha,
                       std::string(edgeq::name(ExecMode::kSimulate)), std::to_string(o_.bench_runs),
                       std::to_string(o_.bench_warmup), std::to_string(o_.threads)}),
            "", {a.id}, [&] {
              return bench_step(a.path, ExecMode::kSimulate, o_.bench_runs, o_.bench_warmup,
                                o_.threads);
            });
        for (const StudyScheme& s : schemes_) {
          std::string why;
          if (!applicable(s, arm, &why)) {
            skipped_.push_back({{"model", m.name},
                                {"arm", std::string(edgeq::name(arm))},
                                {"scheme", s.name},
                                {"reason", why}});
            continue;
          }
          try {
            run_scheme(m, a, s, fp32);
          } catch (const StepBusy&) {
            // another worker holds a step of this run: its other runs go on
          }
        }
      } catch (const StepBusy&) {
        // this arm's cut is held by another worker
      }
  }
  return models;
}

StudyRun StudyRunner::run() {
  const auto t0 = Clock::now();
  prepare();
  progress_.emplace(plan_kinds());
  const nlohmann::json models = traverse(o_.models);

  for (size_t i = 0; i < test_images_.size() && static_cast<int>(i) < o_.thumbnails; ++i) {
    result_.thumbnails.push_back(make_thumbnail(test_images_[i]));
    result_.thumbnails.back().name = test_image_key(test_images_[i]);
  }
  nlohmann::json test_list = nlohmann::json::array();
  for (const std::string& p : test_images_) test_list.push_back(test_image_key(p));

  nlohmann::json inputs = study_options_to_json(o_);
  inputs["models"] = models;
  inputs["placement_used"] = edgeq::name(study_placement(o_));
  inputs["calibration_images"] = {{"count", calib_images_.size()}, {"sha256", calib_sha_}};
  inputs["test_images"] = {
      {"count", test_images_.size()}, {"sha256", test_sha_}, {"names", test_list}};
  inputs["labels_used"] = labels_used_;
  if (probe_labels_) inputs["probe_labels_sha256"] = probe_sha_;

  result_.steps = progress_->total();
  result_.seconds = seconds_since(t0);
  result_.data = {
      {"format", "edgeq-study"},
      {"version", kStudyDataVersion},
      {"inputs", inputs},
      {"runs", runs_},
      {"skipped", skipped_},
      {"timing",
       {{"seconds", result_.seconds}, {"steps", result_.steps}, {"cached_steps", result_.cached}}}};
  return result_;
}

}  // namespace

StudyWork StudyRunner::work() {
  const auto t0 = Clock::now();
  EDGEQ_CHECK(role_.count >= 1 && role_.index >= 0 && role_.index < role_.count,
              "worker must be i/N with 0 <= i < N, got ", role_.index, "/", role_.count);
  prepare();
  claims_.emplace(o_.out + "/cache/claims", worker_name(), role_.lease_s);
  std::vector<std::string> models = o_.models;  // workers start on different models
  std::rotate(models.begin(), models.begin() + role_.index % models.size(), models.end());
  for (;;) {
    throw_if_interrupted();  // a front end's SIGINT / SIGTERM while waiting for other workers
    const size_t before = work_.computed;
    work_.busy = work_.cached = work_.deferred = 0;
    traverse(models);
    ++work_.passes;
    if (work_.busy == 0) break;  // every step but latency is in the cache
    // Steps held by other workers: their results (or their leases running out) come first.
    if (work_.computed == before) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  work_.seconds = seconds_since(t0);
  return work_;
}

nlohmann::json StudyRunner::plan() {
  prepare();
  traverse(o_.models);
  size_t cached = 0;
  for (const nlohmann::json& s : plan_) cached += s.at("cached").get<bool>();
  return {{"format", "edgeq-study-plan"},
          {"version", 1},
          {"cache", o_.out + "/cache"},
          {"steps", plan_},
          {"cached", cached}};
}

StudyRun run_study(const StudyOptions& o) {
  return StudyRunner(o, {}).run();
}

StudyWork run_study_worker(const StudyOptions& o, int index, int count, double lease_s) {
  StudyRole role;
  role.kind = StudyRole::kWorker;
  role.index = index, role.count = count, role.lease_s = lease_s;
  return StudyRunner(o, role).work();
}

nlohmann::json plan_study(const StudyOptions& o) {
  StudyRole role;
  role.kind = StudyRole::kPlan;
  return StudyRunner(o, role).plan();
}

void write_study(const StudyOptions& o, const StudyRun& r) {
  ensure_dir(o.out);
  write_file_atomic(o.out + "/data.json", json_text(r.data, 1) + "\n");
  write_file_atomic(o.out + "/index.html", study_report_html(r.data, r.thumbnails));
}

}  // namespace edgeq
