#include "edgeq/doctor.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/doctor.h"
#include "analysis/qdq_view.h"
#include "api/api_impl.h"
#include "api/inert_options.h"
#include "core/error.h"
#include "core/json_text.h"
#include "encode/quant_plan.h"
#include "ir/onnx_io.h"
#include "quant/sensitivity.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

using Inputs = std::vector<std::map<std::string, Tensor>>;

// The first n of the source's seeded sample, letterboxed for the model's image input.
Inputs image_inputs(const Graph& g, const ImageSource& src, size_t n) {
  const ValueInfo& input = yolo_image_input(g);
  const int h = yolo_input_height(g), w = yolo_input_width(g);
  Inputs out;
  for (const CalibrationImage& e : impl_of(src).sample(n, 0))
    out.push_back({{input.name, preprocess_image(impl_of(src).read(e), h, w, nullptr)}});
  return out;
}

SensitivityRow row(const Sensitivity& s) {
  return {s.value,
          s.loss,
          s.rel_l2,
          s.detections.box_px,
          s.detections.kpt_px,
          s.detections.score,
          s.detections.flipped};
}

nlohmann::json rows_json(const std::vector<SensitivityRow>& rows) {
  nlohmann::json s = nlohmann::json::array();
  for (const auto& x : rows)
    s.push_back({{"name", x.value},
                 {"loss", x.loss},
                 {"rel_l2", x.rel_l2},
                 {"box_px", x.box_px},
                 {"kpt_px", x.kpt_px},
                 {"score", x.score},
                 {"flipped", x.flipped}});
  return s;
}

// Ranks each value (and each block) by the output error it causes alone at 8 bit.
void rank(const Graph& view, const Stats& stats, const TargetOps& target, const Inputs& inputs,
          double top_percent, ProgressReporter& progress, DoctorReport& rep) {
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.placement = target.shares_concat_encoding ? Placement::kQnn : Placement::kOrt;
  const QuantPlan plan =
      plan_quantization(view, c, [&](const std::string& v) { return stats.values.count(v) != 0; });
  SensitivityOptions opt;
  opt.progress = [&](size_t done, size_t total, const std::string&) {
    progress.step("sensitivity", done, total);
  };
  progress.step("sensitivity", 0, plan.activations.size());
  const std::vector<Sensitivity> ranking =
      rank_sensitivity(view, stats, plan.activations, inputs, opt);
  opt.progress = [&](size_t done, size_t total, const std::string&) {
    progress.step("block sensitivity", done, total);
  };
  const std::vector<Sensitivity> blocks =
      rank_block_sensitivity(view, stats, plan.activations, inputs, opt);
  for (const auto& s : ranking) rep.ranking.push_back(row(s));
  for (const auto& s : blocks) rep.blocks.push_back(row(s));
  rep.mixed = mixed_set_from_ranking(ranking, top_percent).a16;
  rep.measure =
      !ranking.empty() && ranking[0].detections.confident > 0 ? "detection_loss" : "rel_l2";
  rep.sensitivity_images = inputs.size();
}

DoctorFinding finding(const Finding& f) {
  return {f.severity, f.kind, f.value, f.node, f.message, f.numbers};
}

}  // namespace

std::vector<InertOption> inert_doctor_options(const DoctorOptions& o) {
  const DoctorOptions d;
  std::vector<InertOption> inert;
  if (o.sensitivity == 0)
    inert.push_back({"top_percent", "sensitivity", o.top_percent != d.top_percent});
  if (!o.images) inert.push_back({"max_images", "images", o.max_images != d.max_images});
  return inert;
}

DoctorReport doctor(const Model& model, const DoctorOptions& o) {
  check_option("max_images", o.max_images, ranges::kImages);
  check_option("sensitivity", o.sensitivity, ranges::kImagesOrOff);
  check_option("top_percent", o.top_percent, ranges::kPercent);
  check_option("max_info", o.max_info, ranges::kCount);
  refuse_set(inert_doctor_options(o));
  EDGEQ_CHECK(o.sensitivity == 0 || o.images, "sensitivity needs images");
  EDGEQ_CHECK(o.sensitivity == 0 || o.stats || o.images, "sensitivity needs statistics");
  const TargetOps target = load_target(o.target);
  const Graph& g = impl_of(model).graph;
  const Graph view = strip_qdq(g);
  EncodingSet file_enc;
  if (!o.encodings_file.empty()) file_enc = load_encodings(o.encodings_file);
  ProgressReporter progress(o.progress);
  DoctorReport rep;

  Stats stats;
  const bool have_stats = o.stats || o.images;
  if (o.stats) {
    stats = impl_of(*o.stats).stats;
  } else if (o.images) {  // the one calibration path
    CalibrateOptions co;
    co.n = o.max_images;
    co.progress = o.progress;
    const Calibration cal = calibrate(
        Model::from_bytes(serialize_onnx(view), model.name() + " (float view)"), *o.images, co);
    progress.message(
        "doctor", "calibrated the model's float view on " + std::to_string(cal.used) + " images");
    stats = impl_of(cal.stats).stats;
    rep.calibrated_images = cal.used;
  }

  // A QDQ model judged for a target whose int8 convolutions pair products: run on the images.
  Inputs pair_inputs;
  const bool pairs = !target.int8_pairs.empty() && o.images &&
                     std::any_of(g.nodes.begin(), g.nodes.end(), is_qdq_op);
  if (pairs) {
    pair_inputs = image_inputs(view, *o.images, o.max_images);
    progress.message("doctor", "int8 pairs: running the model on " +
                                   std::to_string(pair_inputs.size()) +
                                   " images (exact and as ONNX Runtime's AVX2 kernels)");
    rep.pair_images = pair_inputs.size();
  }
  const DoctorResult found =
      run_doctor(g, o.encodings_file.empty() ? nullptr : &file_enc, have_stats ? &stats : nullptr,
                 target, pairs ? &pair_inputs : nullptr);
  rep.target = found.target;
  rep.qdq = found.qdq;
  rep.encodings_from = found.encodings_from;
  rep.has_stats = found.has_stats;
  for (const Finding& f : found.findings) rep.findings.push_back(finding(f));
  DoctorText text = format_doctor_text(found, o.max_info, o.all);
  rep.text = std::move(text.text);
  rep.hidden = text.hidden;
  nlohmann::json j = doctor_report_to_json(found);

  if (o.sensitivity > 0) {
    rank(view, stats, target, image_inputs(view, *o.images, o.sensitivity), o.top_percent, progress,
         rep);
    j["sensitivity"] = {{"images", rep.sensitivity_images},
                        {"measure", rep.measure},
                        {"ranking", rows_json(rep.ranking)},
                        {"blocks", rows_json(rep.blocks)},
                        {"a16", rep.mixed}};
  }
  rep.json = json_text(j, 2);
  return rep;
}

}  // namespace edgeq
