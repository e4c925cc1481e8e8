// edgeq cut: writes one arm of a YOLO11 model (A: backbone + pooled taps, B: up to P3/P4/P5,
// C: full model, optionally with taps) as a standalone ONNX model.
#include <iostream>

#include "commands.h"
#include "edgeq/choices.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/model_tools.h"
#include "edgeq/text.h"

namespace edgeq::cli {
namespace {

struct CutArgs {
  std::string model, arm, taps, out;
};

std::vector<int> parse_taps(const std::string& s) {
  std::vector<int> taps;
  check_unique(comma_list(s), "--taps");
  for (const std::string& item : comma_list(s)) {
    size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EDGEQ_CHECK(used > 0 && used == item.size() && v >= 0, "--taps: '", item,
                "' is not a layer index (expected a list like 4,6,8,10)");
    taps.push_back(v);
  }
  EDGEQ_CHECK(!taps.empty(), "--taps: no layer given (expected a list like 4,6,8,10)");
  return taps;
}

void run_cut(const CutArgs& a) {
  check_distinct_files({{"--model", a.model}}, {{"--out", a.out}});
  CutOptions spec;
  spec.arm = parse<Arm>(a.arm, "--arm");
  if (!a.taps.empty()) {
    spec.taps = parse_taps(a.taps);
    spec.taps_given = true;
  }
  const Model model = Model::load(a.model);
  const Model arm = cut_model(model, spec);
  save_model(arm, a.out);
  std::cout << "wrote " << printable(a.out) << ": arm " << name(spec.arm) << ", " << node_count(arm)
            << " nodes (model: " << node_count(model) << "), outputs:";
  for (const auto& o : arm.outputs())
    std::cout << " " << printable(o.name) << " " << shape_text(o.shape);
  std::cout << "\n";
}

}  // namespace

void register_cut(CLI::App& app) {
  auto a = std::make_shared<CutArgs>();
  auto* cmd = app.add_subcommand(
      "cut",
      "Cut a YOLO11 model into an arm: A backbone + pooled taps, B up to P3/P4/P5, C full, head "
      "raw head (ends at the head's convolutions; the decode runs on the host)");
  cmd->add_option("--model", a->model, "ONNX model with Ultralytics export names")->required();
  cmd->add_option("--arm", a->arm,
                  "A (layers 0-10, taps), B (0-22, P3/P4/P5), C (full model), head (raw head: "
                  "box, class and keypoint convolutions per scale, layout in the metadata)")
      ->required();
  cmd->add_option("--taps", a->taps,
                  "layers to tap with global avg + max pooling (default for arm A: 4,6,8,10)");
  cmd->add_option("--out", a->out, "ONNX file to write")->required();
  cmd->callback([a] { run_cut(*a); });
}

}  // namespace edgeq::cli
