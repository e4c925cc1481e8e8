// edgeq inspect --model M.onnx [--json F]: inputs/outputs, op histogram, per-module table
// (kind, output shape, parameters, FLOPs), backbone/neck/head shares, bytes per frame.
#include <iostream>

#include "analysis/model_summary.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/printable.h"
#include "ir/onnx_io.h"

namespace edgeq::cli {
namespace {

struct InspectArgs {
  std::string model, json;
};

void run_inspect(const InspectArgs& a) {
  check_distinct_files({{"--model", a.model}}, {{"--json", a.json, RoleFile::kText}});
  Graph g = load_onnx(a.model);
  ModelSummary s = summarize_model(g);
  std::cout << "model   " << printable(a.model) << "\n" << format_summary(s);
  if (!a.json.empty()) {
    nlohmann::json j = summary_to_json(s);
    j["model"] = a.model;
    write_file_atomic(a.json, json_text(j, 2) + "\n");
  }
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
