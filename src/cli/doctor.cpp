// edgeq doctor: what a quantized (or float) model will get wrong, most severe first: truncated
// encodings (and the pixel where YOLO boxes pin), concat spans, float tails and ops the target
// cannot run quantized, and optionally per-value sensitivity with a mixed-precision set.
#include "analysis/doctor.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/qdq_view.h"
#include "analysis/sensitivity.h"
#include "api/api_impl.h"
#include "cli/commands.h"
#include "cli/model_input.h"
#include "cli/progress_printer.h"
#include "core/error.h"
#include "core/file_io.h"
#include "ir/onnx_io.h"
#include "quant/quant_plan.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {
namespace {

struct DoctorArgs {
  std::string model, encodings, stats, target = "cpu", json, images, mixed_out;
  int sensitivity = 0;
  double top_percent = 10;
  int max_images = 8;
  size_t max_info = 15;
};

std::vector<std::map<std::string, Tensor>> load_inputs(const Graph& g, const std::string& dir,
                                                       size_t n) {
  std::vector<std::map<std::string, Tensor>> out;
  const std::string& input = yolo_image_input(g).name;
  for (Tensor& x : load_image_inputs(g, dir, n, "--images")) out.push_back({{input, x}});
  return out;
}

void run_doctor_cli(const DoctorArgs& a) {
  check_distinct_files({{"--model", a.model}, {"--encodings", a.encodings}, {"--stats", a.stats}},
                       {{"--json", a.json}, {"--mixed-out", a.mixed_out}});
  TargetOps target = load_target(a.target);
  Graph model = load_onnx(a.model);
  Graph view = strip_qdq(model);
  EncodingSet file_enc;
  if (!a.encodings.empty()) file_enc = load_encodings(a.encodings);

  Stats stats;
  bool have_stats = false;
  if (!a.stats.empty()) {
    stats = load_stats(a.stats);
    have_stats = true;
  } else if (!a.images.empty()) {  // the one calibration path (edgeq::calibrate)
    CalibrateOptions co;
    co.n = static_cast<size_t>(a.max_images);
    ProgressPrinter printer;
    co.progress = printer.callback();
    const Calibration cal =
        calibrate(Model::from_bytes(serialize_onnx(view), a.model + " (float view)"),
                  image_source("--images", a.images), co);
    std::cerr << "calibrated the model's float view on " << cal.used << " images\n";
    stats = cal.stats.impl().stats;
    have_stats = true;
  }

  // A QDQ model judged for a target whose int8 convolutions pair products: run on the images.
  std::vector<std::map<std::string, Tensor>> pair_inputs;
  const bool pairs = !target.int8_pairs.empty() && !a.images.empty() &&
                     std::any_of(model.nodes.begin(), model.nodes.end(), is_qdq_op);
  if (pairs) {
    pair_inputs = load_inputs(view, a.images, a.max_images);
    std::cerr << "int8 pairs: running the model on " << pair_inputs.size()
              << " images (exact and as ONNX Runtime's AVX2 kernels)\n";
  }
  DoctorReport rep =
      run_doctor(model, a.encodings.empty() ? nullptr : &file_enc, have_stats ? &stats : nullptr,
                 target, pairs ? &pair_inputs : nullptr);
  std::cout << format_doctor_report(rep, a.max_info);
  nlohmann::json j = doctor_report_to_json(rep);

  if (a.sensitivity > 0) {
    EDGEQ_CHECK(have_stats, "--sensitivity needs --stats (for each value's range)");
    EDGEQ_CHECK(!a.images.empty(), "--sensitivity needs --images");
    auto inputs = load_inputs(view, a.images, a.sensitivity);
    QuantConfig c = config_for_scheme("w8a8");
    c.placement = target.shares_concat_encoding ? Placement::kQnn : Placement::kOrt;
    QuantPlan plan = plan_quantization(
        view, c, [&](const std::string& v) { return stats.values.count(v) != 0; });
    SensitivityOptions opt;
    opt.progress = [](size_t done, size_t total, const std::string&) {
      if (done % 25 == 0 || done == total)
        std::cerr << "sensitivity: " << done << "/" << total << "\n";
    };
    auto ranking = rank_sensitivity(view, stats, plan.activations, inputs, opt);
    auto blocks = rank_block_sensitivity(view, stats, plan.activations, inputs, opt);
    MixedSet mixed = mixed_set_from_ranking(ranking, a.top_percent);
    const bool detections = !ranking.empty() && ranking[0].detections.confident > 0;
    const std::string what = detections
                                 ? "detection loss (box/2px + kpt/2px + score/0.02 + flipped)"
                                 : "rel. L2 of " + view.outputs.at(0).name;
    std::cout << "sensitivity (one value at 8 bit, rest FP32; " << what << " over " << inputs.size()
              << " images):\n";
    for (size_t i = 0; i < ranking.size() && i < 10; ++i)
      std::cout << "  " << i + 1 << ". " << ranking[i].value << "  " << ranking[i].loss << "\n";
    std::cout << "blocks (each block at 8 bit, rest FP32):\n";
    for (size_t i = 0; i < blocks.size() && i < 10; ++i)
      std::cout << "  " << i + 1 << ". " << blocks[i].value << "  " << blocks[i].loss << "\n";
    std::cout << "mixed set: " << mixed.a16.size() << " of " << ranking.size()
              << " values at 16 bit (top " << a.top_percent << "%; quantize --auto searches "
              << "a set under a budget on real W8A8 runs)\n";
    auto rows = [](const std::vector<Sensitivity>& r) {
      nlohmann::json s = nlohmann::json::array();
      for (const auto& x : r)
        s.push_back({{"name", x.value},
                     {"loss", x.loss},
                     {"rel_l2", x.rel_l2},
                     {"box_px", x.detections.box_px},
                     {"kpt_px", x.detections.kpt_px},
                     {"score", x.detections.score},
                     {"flipped", x.detections.flipped}});
      return s;
    };
    j["sensitivity"] = {{"images", inputs.size()},
                        {"measure", detections ? "detection_loss" : "rel_l2"},
                        {"ranking", rows(ranking)},
                        {"blocks", rows(blocks)},
                        {"a16", mixed.a16}};
    if (!a.mixed_out.empty()) {
      save_mixed_set(mixed, a.mixed_out);
      std::cout << "wrote " << a.mixed_out << " (quantize --mixed)\n";
    }
  }
  if (!a.json.empty()) write_file_atomic(a.json, j.dump(2) + "\n");
}

}  // namespace

void register_doctor(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  auto* cmd = app.add_subcommand(
      "doctor", "Find what quantization breaks: truncation, concat spans, float tails, placement");
  cmd->add_option("--model", a->model, "ONNX model: FP32 or QDQ (ours or a third party's)")
      ->required();
  cmd->add_option("--encodings", a->encodings,
                  "encodings JSON (AIMET/QNN form) to judge instead of the model's Q/DQ");
  cmd->add_option("--stats", a->stats, "FP32 calibration statistics (edgeq calibrate)");
  cmd->add_option("--target", a->target,
                  "qnn-htp | rknn | cpu | cpu-avx2 (x86 without VNNI: int8 pairs that saturate) "
                  "| openvino, or an op table .json (data/targets/ form)")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "write all findings, ranges and concat spans as JSON");
  cmd->add_option("--images", a->images,
                  "images: calibrate the model's float view when --stats is absent; inputs for "
                  "--sensitivity");
  cmd->add_option("--max-images", a->max_images, "images used for calibration")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--sensitivity", a->sensitivity,
                  "rank values by output error, one at a time at 8 bit, on N images (0: off)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-percent", a->top_percent, "share of values the mixed set keeps at 16 bit")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--mixed-out", a->mixed_out, "write the mixed-precision set (quantize --mixed)");
  cmd->add_option("--max-info", a->max_info, "info findings printed (all are in --json)")
      ->capture_default_str();
  cmd->callback([a] { run_doctor_cli(*a); });
}

}  // namespace edgeq::cli
