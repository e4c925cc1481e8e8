// edgeq infer: run a model once and write every graph output as DIR/<name>.npy.
#include <iostream>

#include "cli/commands.h"
#include "cli/model_input.h"
#include "cli/run_options.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"

namespace edgeq::cli {
namespace {

struct InferArgs {
  std::string model, input, image, out;
  RunOptions run;
};

std::string file_safe(std::string name) {
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return name;
}

void run_infer(const InferArgs& a) {
  check_distinct_files({{"--model", a.model}, {"--input", a.input}, {"--image", a.image}},
                       {{"--out", a.out}});
  Graph g = load_onnx(a.model);
  Tensor x = make_input(g, a.input, a.image);
  Executor ex(g, a.run.executor());
  print_notices(ex);
  auto outputs = ex.run({{g.inputs.at(0).name, x}});
  ensure_dir(a.out);
  for (const auto& o : g.outputs) {
    std::string path = a.out + "/" + file_safe(o.name) + ".npy";
    save_npy(outputs.at(o.name), path);
    std::cout << o.name << " " << shape_str(outputs.at(o.name).shape()) << " -> " << path << "\n";
  }
}

}  // namespace

void register_infer(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  auto* cmd = app.add_subcommand("infer", "Run a model once; write each output as DIR/<name>.npy");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  auto* in = cmd->add_option("--input", a->input, "input tensor (.npy, float32, model's shape)");
  auto* im = cmd->add_option("--image", a->image, "image, letterboxed as Ultralytics does");
  in->excludes(im);
  cmd->add_option("--out", a->out, "output folder")->required();
  add_run_options(cmd, a->run);
  cmd->callback([a] { run_infer(*a); });
}

}  // namespace edgeq::cli
