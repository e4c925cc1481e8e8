#include "study/study_steps.h"

#include <filesystem>
#include <map>
#include <memory>

#include "core/error.h"
#include "core/json_text.h"
#include "edgeq/bench.h"
#include "edgeq/compare.h"
#include "edgeq/doctor.h"
#include "edgeq/model.h"
#include "edgeq/quantize.h"
#include "edgeq/quantize_io.h"
#include "edgeq/report_json.h"
#include "ir/onnx_io.h"

namespace edgeq {
namespace {

nlohmann::json error_json(const DetectionError& m) {
  return {{"loss", m.loss},
          {"box_px", m.box_px},
          {"kpt_px", m.kpt_px},
          {"score", m.score},
          {"flipped", m.flipped}};
}

// The public report's detections ([{"box", "score", "class"}]) as the study keeps them:
// [x1, y1, x2, y2, score] each.
nlohmann::json boxes_json(const nlohmann::json& dets) {
  nlohmann::json a = nlohmann::json::array();
  for (const nlohmann::json& d : dets) {
    const nlohmann::json& b = d.at("box");
    a.push_back({b.at(0), b.at(1), b.at(2), b.at(3), d.at("score")});
  }
  return a;
}

// "tap_avg4" -> 4 with avg = true; -1 for other names.
int tap_layer(const std::string& name, bool* avg) {
  for (const char* prefix : {"tap_avg", "tap_max"}) {
    const std::string p = prefix;
    if (name.rfind(p, 0) == 0 && name.size() > p.size()) {
      *avg = p == "tap_avg";
      try {
        return std::stoi(name.substr(p.size()));
      } catch (const std::exception&) {
        return -1;
      }
    }
  }
  return -1;
}

// The public report's mAP of one model ({"box": {...}, "pose": {...}}) as the study keeps it.
nlohmann::json map_json(const nlohmann::json& t) {
  nlohmann::json j = {{"box_map50", t.at("box").at("map50")},
                      {"box_map50_95", t.at("box").at("map50_95")}};
  if (t.contains("pose")) j["pose_map50_95"] = t.at("pose").at("map50_95");
  return j;
}

nlohmann::json bench_json(const Model& model, ExecMode exec, int runs, int warmup, int threads) {
  BenchOptions b;
  b.exec.mode = exec;
  b.exec.threads = threads;
  b.runs = runs;
  b.warmup = warmup;
  return parse_json_text(bench(model, b).json);
}

}  // namespace

size_t initializer_bytes(const Graph& g) {
  size_t b = 0;
  for (const auto& [name, t] : g.initializers) b += t.nbytes();
  return b;
}

nlohmann::json quantize_step(const std::string& arm_path, const CalibrationStats& arm_stats,
                             const StudyScheme& scheme, const StudyOptions& o,
                             const std::string& out_path) {
  QuantizeOptions q;
  q.scheme = scheme.base;
  q.range = o.range;
  q.placement = study_placement(o);
  q.threads = o.threads;
  q.search.percent = scheme.auto_percent;
  if (scheme.auto_percent > 0) q.search.n = static_cast<size_t>(o.auto_n);
  const std::string& val = o.val.empty() ? o.images : o.val;
  if (scheme.auto_percent > 0)
    q.images = std::make_shared<ImageSource>(ImageSource::from_path(val));
  if (o.weight_repair) {
    EDGEQ_CHECK(scheme.auto_percent == 0 || val == o.images,
                "the study's weight repair reads the calibration images and its search the "
                "validation images; with weight_repair, leave val unset");
    q.images = std::make_shared<ImageSource>(ImageSource::from_path(o.images));
    // The calibration sample, where the scheme runs a repair step: GPTQ, w8a16's default (no
    // cle, no bias correction here), as inert_study_options says.
    if (scheme.base == Scheme::kW8A16) {
      q.repair.n = o.calib_n;
      q.repair.seed = o.seed;
    }
  }
  q.progress = o.progress;  // the search's and weight repair's own events
  const QuantizedModel m = quantize(Model::load(arm_path), arm_stats, q);
  m.save(out_path);
  nlohmann::json j;
  const AutoSearchReport& r = m.search();
  if (r.ran)
    j["auto"] = {
        {"budget_percent", r.percent},   {"images", r.images}, {"chosen", r.chosen.size()},
        {"values_16bit", r.values16},    {"values", r.values}, {"base", error_json(r.base)},
        {"result", error_json(r.result)}};
  // The summary every front end writes (edgeq::quantize_summary_json: one key set).
  j["quantize"] = parse_json_text(quantize_summary_json(m));
  j["weights_bytes"] = initializer_bytes(load_onnx(out_path));
  if (o.weight_repair)
    j["weight_repair"] = {{"gptq", m.repair().gptq}, {"images", m.repair().images}};
  return j;
}

nlohmann::json compare_step(const std::string& fp32_path, const std::string& q_path,
                            const std::string& test, const std::string& labels, int test_n,
                            int keep_detections, int threads) {
  CompareOptions co;
  co.labels = labels;
  co.n = static_cast<size_t>(test_n);
  co.exec.threads = threads;
  co.keep_detections = static_cast<size_t>(keep_detections);
  const nlohmann::json rep =
      parse_json_text(compare(Model::load(fp32_path), Model::load(q_path), test, co).json);
  nlohmann::json j;
  j["images"] = rep.at("images");
  j["outputs"] = nlohmann::json::array();
  std::map<int, nlohmann::json> taps;
  for (const nlohmann::json& e : rep.at("tensors")) {
    j["outputs"].push_back({{"name", e.at("name")},
                            {"shape", e.at("shape")},
                            {"rel_l2", e.at("rel_l2")},
                            {"cosine", e.at("cosine")},
                            {"max_abs", e.at("max_abs")}});
    bool avg = false;
    const int layer = tap_layer(e.at("name").get<std::string>(), &avg);
    if (layer < 0) continue;
    nlohmann::json& t = taps[layer];
    t["layer"] = layer;
    t[avg ? "avg" : "max"] = {{"rel_l2", e.at("rel_l2")}, {"cosine", e.at("cosine")}};
  }
  if (!taps.empty()) {
    j["taps"] = nlohmann::json::array();
    for (auto& [layer, t] : taps) j["taps"].push_back(t);
  }
  const nlohmann::json& d = rep.at("detections");
  if (!d.is_null()) {
    j["detections"] = {{"fp32", d.at("ref")},
                       {"quantized", d.at("test")},
                       {"matched", d.at("matched")},
                       {"match_rate", d.at("match_rate")},
                       {"extra", d.at("extra")},
                       {"missing", d.at("missing")},
                       {"box_px_mean", d.at("box_px").at("mean")},
                       {"box_px_p95", d.at("box_px").at("p95")},
                       {"score_abs_mean", d.at("score_shift").at("mean")}};
    if (d.contains("keypoint_px")) j["detections"]["kpt_px_mean"] = d.at("keypoint_px").at("mean");
    const nlohmann::json& l = rep.at("labels");
    if (!l.is_null())
      j["map"] = {{"labels", l.at("from")},
                  {"fp32", map_json(l.at("ref"))},
                  {"quantized", map_json(l.at("test"))}};
    j["per_image"] = nlohmann::json::array();
    for (const nlohmann::json& im : rep.value("per_image", nlohmann::json::array()))
      j["per_image"].push_back({{"path", im.at("path")},
                                {"width", im.at("width")},
                                {"height", im.at("height")},
                                {"fp32", boxes_json(im.at("ref"))},
                                {"quantized", boxes_json(im.at("test"))},
                                {"matches", im.at("matches")}});
  }
  return j;
}

nlohmann::json doctor_step(const std::string& q_path, const CalibrationStats& arm_stats,
                           const std::string& target, size_t top) {
  DoctorOptions d;
  d.target = target;
  d.stats = std::make_shared<const CalibrationStats>(arm_stats);
  const DoctorReport rep = doctor(Model::load(q_path), d);
  nlohmann::json counts = {{"error", 0}, {"warning", 0}, {"info", 0}};
  nlohmann::json first = nlohmann::json::array();
  for (const DoctorFinding& f : rep.findings) {
    const std::string severity(name(f.severity));
    counts[severity] = counts[severity].get<int>() + 1;
    if (first.size() < top)
      first.push_back({{"severity", severity},
                       {"kind", f.kind},
                       {"value", f.value.empty() ? f.node : f.value},
                       {"message", f.message}});
  }
  return {{"findings", counts}, {"top", first}};
}

nlohmann::json bench_step(const std::string& path, ExecMode exec, int runs, int warmup, int threads,
                          const CalibrationStats* io_stats) {
  const Model model = Model::load(path);
  // The cache entry's name, not its path: the cache may be shared or moved.
  const std::string name = std::filesystem::path(path).filename().string();
  nlohmann::json j = bench_json(model, exec, runs, warmup, threads);
  j["model"] = name;
  if (io_stats) {
    j["quantized_io"] = bench_json(quantize_model_io(model, *io_stats, QuantizeIo::kBoth), exec,
                                   runs, warmup, threads);
    j["quantized_io"]["model"] = name;
  }
  return j;
}

}  // namespace edgeq
