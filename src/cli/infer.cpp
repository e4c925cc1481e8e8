// edgeq infer: run a model once and write every graph output as DIR/<name>.npy.
#include <iostream>

#include "cli/commands.h"
#include "cli/model_input.h"
#include "cli/run_options.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "core/printable.h"
#include "ir/onnx_io.h"
#include "quant/weight_encoding.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"

namespace edgeq::cli {
namespace {

struct InferArgs {
  std::string model, input, image, out;
  bool raw = false;
  RunOptions run;
};

std::string file_safe(std::string name) {
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return name;
}

std::string output_path(const InferArgs& a, const ValueInfo& output) {
  return a.out + "/" + file_safe(output.name) + ".npy";
}

void run_infer(const InferArgs& a) {
  const std::vector<RoleFile> inputs{
      {"--model", a.model}, {"--input", a.input}, {"--image", a.image}};
  // The folder first (a file there fails before the model loads), then its files by name.
  check_distinct_files(
      inputs, {{"--out", a.out, RoleFile::kFolder, [](const std::string&) { return false; }}});
  Graph g = load_onnx(a.model);
  std::vector<RoleFile> files;  // each file, named by the model, before it runs
  for (const ValueInfo& o : g.outputs) files.push_back({"--out", output_path(a, o)});
  check_distinct_files(inputs, files);
  Tensor x = make_input(g, a.input, a.image);
  ExecutorOptions options = a.run.executor();
  options.float_io = !a.raw;
  if (a.raw && !a.image.empty())  // the letterboxed image as the codes a coded input takes
    for (const CodedValue& c : coded_io(g))
      if (c.input && c.name == g.inputs.at(0).name)
        x = quantize_tensor(x, TensorEncoding::per_tensor(c.encoding));
  Executor ex(g, options);
  print_notices(ex);
  auto outputs = ex.run({{g.inputs.at(0).name, x}});
  ensure_dir(a.out);
  for (const auto& o : g.outputs) {
    const std::string path = output_path(a, o);
    save_npy(outputs.at(o.name), path);
    std::cout << printable(o.name) << " " << shape_str(outputs.at(o.name).shape()) << " -> "
              << printable(path) << "\n";
  }
}

}  // namespace

void register_infer(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  auto* cmd = app.add_subcommand(
      "infer",
      "Run a model once; write each output as DIR/<name>.npy (float; the codes with --raw)");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  auto* in =
      cmd->add_option("--input", a->input,
                      "input tensor (.npy, the model's shape; float32, or the codes with --raw)");
  auto* im = cmd->add_option("--image", a->image, "image, letterboxed as Ultralytics does");
  in->excludes(im);
  cmd->add_option("--out", a->out, "output folder")->required();
  cmd->add_flag("--raw", a->raw,
                "a model with quantized inputs / outputs (quantize --quantize-io): take and write "
                "the codes (an --image is quantized after letterboxing) instead of floats");
  add_run_options(cmd, a->run);
  cmd->callback([a] { run_infer(*a); });
}

}  // namespace edgeq::cli
