#include "study/study_steps.h"

#include <algorithm>

#include "analysis/doctor.h"
#include "analysis/op_support.h"
#include "api/api_impl.h"
#include "api/inert_options.h"
#include "core/error.h"
#include "edgeq/quantize.h"
#include "eval/compare.h"
#include "ir/onnx_io.h"
#include "quant/decode_tail.h"
#include "quant/qdq_import.h"
#include "quant/quantize_io.h"
#include "runtime/float_io.h"
#include "runtime/latency.h"

namespace edgeq {
namespace {

nlohmann::json error_json(const DetectionError& m) {
  return {{"loss", m.loss},
          {"box_px", m.box_px},
          {"kpt_px", m.kpt_px},
          {"score", m.score},
          {"flipped", m.flipped}};
}

nlohmann::json boxes_json(const std::vector<Detection>& dets) {
  nlohmann::json a = nlohmann::json::array();
  for (const Detection& d : dets) a.push_back({d.box[0], d.box[1], d.box[2], d.box[3], d.score});
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

nlohmann::json map_json(const TaskMetrics& t) {
  nlohmann::json j = {{"box_map50", t.box.map50}, {"box_map50_95", t.box.map50_95}};
  if (t.has_pose) j["pose_map50_95"] = t.pose.map50_95;
  return j;
}

}  // namespace

size_t initializer_bytes(const Graph& g) {
  size_t b = 0;
  for (const auto& [name, t] : g.initializers) b += t.nbytes();
  return b;
}

nlohmann::json quantize_step(const std::string& arm_path, const Stats& arm_stats,
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
    // The calibration sample, where the scheme runs a repair step (GPTQ under w8a16).
    const std::vector<InertOption> inert = inert_quantize_options(q);
    if (std::none_of(inert.begin(), inert.end(),
                     [](const InertOption& i) { return i.name == "repair_n"; })) {
      q.repair.n = o.calib_n;
      q.repair.seed = o.seed;
    }
  }
  q.progress = o.progress;  // the search's and weight repair's own events
  const QuantizedModel m = quantize(Model::load(arm_path), make_stats(arm_stats, arm_path), q);
  m.save(out_path);
  nlohmann::json j;
  const AutoSearchReport& r = m.search();
  if (r.ran)
    j["auto"] = {
        {"budget_percent", r.percent},   {"images", r.images}, {"chosen", r.chosen.size()},
        {"values_16bit", r.values16},    {"values", r.values}, {"base", error_json(r.base)},
        {"result", error_json(r.result)}};
  const QuantizeSummary& s = m.summary();
  j["activations"] = {{"bits8", s.activations_8bit},
                      {"bits16", s.activations_16bit},
                      {"float", s.activations_float}};
  j["decode_tail"] = s.decode_tail_values;
  j["weights_bytes"] = initializer_bytes(load_onnx(out_path));
  j["placement"] = s.placement;
  if (o.weight_repair)
    j["weight_repair"] = {{"gptq", m.repair().gptq}, {"images", m.repair().images}};
  return j;
}

nlohmann::json compare_step(const std::string& fp32_path, const std::string& q_path,
                            const std::string& test, const std::string& labels, int test_n,
                            int keep_detections, int threads) {
  CompareRunOptions co;
  co.ref_model = fp32_path;
  co.test_model = q_path;
  co.images = test;
  co.labels = labels;
  co.max_images = test_n;
  co.threads = threads;
  co.keep_detections = keep_detections;
  const CompareResult rep = run_compare(co, nullptr);
  nlohmann::json j;
  j["images"] = rep.images;
  j["outputs"] = nlohmann::json::array();
  std::map<int, nlohmann::json> taps;
  for (const OutputError& e : rep.outputs) {
    j["outputs"].push_back({{"name", e.name},
                            {"shape", e.shape},
                            {"rel_l2", e.error.rel_l2},
                            {"cosine", e.error.cosine},
                            {"max_abs", e.error.max_abs}});
    bool avg = false;
    const int layer = tap_layer(e.name, &avg);
    if (layer < 0) continue;
    nlohmann::json& t = taps[layer];
    t["layer"] = layer;
    t[avg ? "avg" : "max"] = {{"rel_l2", e.error.rel_l2}, {"cosine", e.error.cosine}};
  }
  if (!taps.empty()) {
    j["taps"] = nlohmann::json::array();
    for (auto& [layer, t] : taps) j["taps"].push_back(t);
  }
  if (rep.has_detections) {
    const DetectionDiff& d = rep.detections;
    j["detections"] = {
        {"fp32", d.ref_count},
        {"quantized", d.test_count},
        {"matched", d.matched},
        {"match_rate", d.match_rate ? nlohmann::json(*d.match_rate) : nlohmann::json()},
        {"extra", d.extra},
        {"missing", d.missing},
        {"box_px_mean", d.box_px.mean},
        {"box_px_p95", d.box_px.p95},
        {"kpt_px_mean", d.kpt_px.mean},
        {"score_abs_mean", d.score_abs.mean}};
    if (!rep.pose) j["detections"].erase("kpt_px_mean");
    if (rep.has_labels)
      j["map"] = {{"labels", rep.labels_from},
                  {"fp32", map_json(rep.ref_metrics)},
                  {"quantized", map_json(rep.test_metrics)}};
    j["per_image"] = nlohmann::json::array();
    for (const ImageDetections& im : rep.per_image) {
      nlohmann::json matches = nlohmann::json::array();
      for (const auto& [r, t] : match_detections(im.ref, im.test)) matches.push_back({r, t});
      j["per_image"].push_back({{"path", im.path},
                                {"width", im.width},
                                {"height", im.height},
                                {"fp32", boxes_json(im.ref)},
                                {"quantized", boxes_json(im.test)},
                                {"matches", matches}});
    }
  }
  return j;
}

nlohmann::json doctor_step(const std::string& q_path, const Stats& arm_stats,
                           const std::string& target, size_t top) {
  const Graph q = load_onnx(q_path);
  const DoctorResult rep = run_doctor(q, nullptr, &arm_stats, load_target(target));
  nlohmann::json counts = {{"error", 0}, {"warning", 0}, {"info", 0}};
  nlohmann::json first = nlohmann::json::array();
  for (const Finding& f : rep.findings) {
    counts[severity_name(f.severity)] = counts[severity_name(f.severity)].get<int>() + 1;
    if (first.size() < top)
      first.push_back({{"severity", severity_name(f.severity)},
                       {"kind", f.kind},
                       {"value", f.value.empty() ? f.node : f.value},
                       {"message", f.message}});
  }
  return {{"findings", counts}, {"top", first}};
}

namespace {

nlohmann::json bench_graph(Graph g, ExecMode exec, int runs, int warmup, int threads) {
  const auto inputs = random_inputs(g);
  ExecutorOptions eo;
  eo.threads = threads;
  eo.exec = exec;
  Executor ex(g, eo);
  const LatencyResult r = measure_latency(ex, inputs, runs, warmup);
  const IoBytes io = io_bytes(g, [&](const std::string& v) { return ex.desc(v).shape; });
  return {{"exec", exec == ExecMode::kInt8 ? "int8" : "simulate"},
          {"threads", ex.threads()},
          {"runs", runs},
          {"warmup", warmup},
          {"median_ms", r.median_ms},
          {"min_ms", r.min_ms},
          {"p95_ms", r.p95_ms},
          {"plan_ms", r.prepare_ms},
          {"arena_bytes", ex.arena_bytes()},
          {"executor_weight_bytes", ex.weight_bytes()},
          {"input_bytes", io.in},
          {"output_bytes", io.out}};
}

}  // namespace

nlohmann::json bench_step(const std::string& path, ExecMode exec, int runs, int warmup, int threads,
                          const Stats* io_stats) {
  const Graph g = load_onnx(path);
  nlohmann::json j = bench_graph(g, exec, runs, warmup, threads);
  if (io_stats) {
    QdqModel io;
    io.graph = g;
    io.encodings = encodings_from_qdq(g);
    quantize_io(io, QuantizeIo::kBoth, *io_stats);
    j["quantized_io"] = bench_graph(std::move(io.graph), exec, runs, warmup, threads);
  }
  return j;
}

}  // namespace edgeq
