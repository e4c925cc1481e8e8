// edgeq inspect --model M.onnx [--json F]: inputs/outputs, op histogram, per-module table
// (kind, output shape, parameters, FLOPs), backbone/neck/head shares, bytes per frame.
#include <iostream>

#include "commands.h"
#include "edgeq/files.h"
#include "edgeq/model.h"
#include "edgeq/model_tools.h"
#include "edgeq/text.h"

namespace edgeq::cli {
namespace {

struct InspectArgs {
  std::string model, json;
};

void run_inspect(const InspectArgs& a) {
  check_distinct_files({{"--model", a.model}}, {{"--json", a.json, RoleFile::kText}});
  const Model model = Model::load(a.model);
  const std::string summary = model.summary();
  std::cout << "model   " << printable(a.model) << "\n" << summary;
  if (!a.json.empty()) write_file_atomic(a.json, model_summary_json(model) + "\n");
}

}  // namespace

void register_inspect(CLI::App& app) {
  auto a = std::make_shared<InspectArgs>();
  auto* cmd = app.add_subcommand("inspect", "What a model is made of: layers, parameters, FLOPs");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  cmd->add_option("--json", a->json, "also write the summary as JSON");
  cmd->callback([a] { run_inspect(*a); });
}

}  // namespace edgeq::cli
