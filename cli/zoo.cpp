// edgeq zoo NAME -o M.onnx: writes a synthetic YOLO11 model (official topology, export-style
// names, deterministic weights) for trying edgeq without a trained model.
#include <iostream>

#include "commands.h"
#include "edgeq/files.h"
#include "edgeq/model_tools.h"
#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {
namespace {

struct ZooArgs {
  std::string name, out;
  int64_t imgsz = 640;
};

void run_zoo(const ZooArgs& a) {
  check_distinct_files({}, {{"-o", a.out}});
  // Throws, listing the valid names, for an unknown one.
  const ZooModel z = zoo_model(a.name, a.imgsz);
  save_model(z.model, a.out);
  const auto inputs = z.model.inputs();
  const auto outputs = z.model.outputs();
  std::cout << "wrote " << printable(a.out) << ": " << a.name << ", " << node_count(z.model)
            << " nodes, " << z.parameters << " parameters, input images "
            << shape_text(inputs[0].shape) << ", output " << outputs[0].name << " "
            << shape_text(outputs[0].shape) << "\n";
}

}  // namespace

void register_zoo(CLI::App& app) {
  auto a = std::make_shared<ZooArgs>();
  std::string names;
  for (const auto& n : zoo_model_names()) names += (names.empty() ? "" : ", ") + n;
  auto* cmd = app.add_subcommand(
      "zoo", "Write a synthetic YOLO11 model (official topology, untrained weights) as ONNX");
  cmd->add_option("name", a->name, "model: " + names)->required();
  cmd->add_option("-o,--output", a->out, "ONNX file to write")->required();
  add_number(cmd, "--imgsz", a->imgsz, ranges::kImgsz,
             "input size (smaller runs faster, same conv weights)")
      ->capture_default_str();
  cmd->callback([a] { run_zoo(*a); });
}

}  // namespace edgeq::cli
