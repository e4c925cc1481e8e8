// edgeq doctor: what a quantized (or float) model will get wrong, most severe first: truncated
// encodings (and the pixel where YOLO boxes pin), concat spans, float tails and ops the target
// cannot run quantized, and optionally per-value sensitivity with a mixed-precision set. The
// recipe is the library's (edgeq::doctor); this file maps flags and prints.
#include "edgeq/doctor.h"

#include <iostream>

#include "commands.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/inert_options.h"
#include "edgeq/mixed_set.h"
#include "edgeq/text.h"
#include "model_input.h"
#include "number_options.h"
#include "progress_printer.h"

namespace edgeq::cli {
namespace {

struct DoctorArgs {
  std::string model, encodings, stats, json, images, mixed_out;
  DoctorOptions options;
};

void print_sensitivity(const DoctorReport& rep, double top_percent, const std::string& output) {
  const std::string what = rep.measure == "detection_loss"
                               ? "detection loss (box/2px + kpt/2px + score/0.02 + flipped)"
                               : "rel. L2 of " + output;
  std::cout << "sensitivity (one value at 8 bit, rest FP32; " << what << " over "
            << rep.sensitivity_images << " images):\n";
  for (size_t i = 0; i < rep.ranking.size() && i < 10; ++i)
    std::cout << "  " << i + 1 << ". " << printable(rep.ranking[i].value) << "  "
              << rep.ranking[i].loss << "\n";
  std::cout << "blocks (each block at 8 bit, rest FP32):\n";
  for (size_t i = 0; i < rep.blocks.size() && i < 10; ++i)
    std::cout << "  " << i + 1 << ". " << printable(rep.blocks[i].value) << "  "
              << rep.blocks[i].loss << "\n";
  std::cout << "mixed set: " << rep.mixed.size() << " of " << rep.ranking.size()
            << " values at 16 bit (top " << top_percent << "%; quantize --auto searches "
            << "a set under a budget on real W8A8 runs)\n";
}

void run_doctor_cli(DoctorArgs& a, const CLI::App& cmd) {
  const std::string& target = a.options.target;  // a table's name, or a .json file
  check_distinct_files(
      {{"--model", a.model},
       {"--encodings", a.encodings},
       {"--stats", a.stats},
       {"--target", with_extension(".json")(target) ? target : ""},
       image_input("--images", a.images)},
      {{"--json", a.json, RoleFile::kText}, {"--mixed-out", a.mixed_out, RoleFile::kText}});
  EDGEQ_CHECK(a.options.sensitivity == 0 || !a.images.empty(), "--sensitivity needs --images");
  EDGEQ_CHECK(a.options.sensitivity > 0 || a.mixed_out.empty(),
              "--mixed-out does nothing without --sensitivity");
  if (!a.images.empty())
    a.options.images = std::make_shared<ImageSource>(image_source("--images", a.images));
  refuse_inert_given(a.options, given_flags(cmd, {{"top_percent", "--top-percent"},
                                                  {"max_images", "--max-images"}}));
  const Model model = Model::load(a.model);
  a.options.encodings_file = a.encodings;
  if (!a.stats.empty())
    a.options.stats = std::make_shared<CalibrationStats>(CalibrationStats::load(a.stats));
  ProgressPrinter printer;
  a.options.progress = printer.callback();
  const DoctorReport rep = doctor(model, a.options);
  std::cout << rep.text;
  if (rep.hidden > 0 && !a.options.all)  // with --all: info findings past --max-info
    std::cout << rep.hidden << " findings not shown: --all lists every finding, --json F writes "
              << "them with their numbers\n";
  if (a.options.sensitivity > 0) {
    print_sensitivity(rep, a.options.top_percent, model.outputs().at(0).name);
    if (!a.mixed_out.empty()) {
      save_mixed_set(mixed_set(rep), a.mixed_out);
      std::cout << "wrote " << printable(a.mixed_out) << " (quantize --mixed)\n";
    }
  }
  if (!a.json.empty()) write_file_atomic(a.json, rep.json + "\n");
}

}  // namespace

void register_doctor(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  DoctorOptions& o = a->options;
  auto* cmd = app.add_subcommand(
      "doctor", "Find what quantization breaks: truncation, concat spans, float tails, placement");
  cmd->add_option("--model", a->model, "ONNX model: FP32 or QDQ (ours or a third party's)")
      ->required();
  cmd->add_option("--encodings", a->encodings,
                  "encodings JSON (AIMET/QNN form) to judge instead of the model's Q/DQ");
  cmd->add_option("--stats", a->stats, "FP32 calibration statistics (edgeq calibrate)");
  cmd->add_option("--target", o.target,
                  "qnn-htp | rknn | cpu | cpu-avx2 (x86 without VNNI: int8 pairs that saturate) "
                  "| openvino, or an op table .json (data/targets/ form)")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "write all findings, ranges and concat spans as JSON");
  cmd->add_option("--images", a->images,
                  "images: calibrate the model's float view when --stats is absent; inputs for "
                  "--sensitivity");
  add_number(cmd, "--max-images", o.max_images, ranges::kImages, "images used for calibration")
      ->capture_default_str();
  add_number(cmd, "--sensitivity", o.sensitivity, ranges::kImagesOrOff,
             "rank values by output error, one at a time at 8 bit, on N images");
  add_number(cmd, "--top-percent", o.top_percent, ranges::kPercent,
             "share of values the mixed set keeps at 16 bit (with --sensitivity)")
      ->capture_default_str();
  cmd->add_option("--mixed-out", a->mixed_out,
                  "write the mixed-precision set (quantize --mixed; with --sensitivity)");
  add_number(cmd, "--max-info", o.max_info, ranges::kCount,
             "info findings printed (all are in --json)")
      ->capture_default_str();
  cmd->add_flag("--all", o.all,
                "print every finding, one a line (default: grouped by kind, with counts and "
                "each group's costliest few)");
  cmd->callback([a, cmd] { run_doctor_cli(*a, *cmd); });
}

}  // namespace edgeq::cli
