// edgeq infer: run a model once and write every graph output as DIR/<name>.npy.
#include <algorithm>
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
  bool raw = false, dequantize = false;
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

// Options that change how codes are read or written do nothing on a model whose inputs and
// outputs carry none: refused, as any option that does nothing here.
void check_coded_options(const InferArgs& a, const std::vector<CodedValue>& coded) {
  EDGEQ_CHECK(!(a.raw && a.dequantize),
              "--raw and --dequantize contradict each other (codes or floats out); choose one");
  const bool coded_in = std::any_of(coded.begin(), coded.end(), [](auto& c) { return c.input; });
  const bool coded_out = std::any_of(coded.begin(), coded.end(), [](auto& c) { return !c.input; });
  EDGEQ_CHECK(!a.raw || coded_in || coded_out, "--raw: ", a.model,
              " has no input or output that carries codes (quantize --quantize-io): nothing "
              "to take or write raw");
  EDGEQ_CHECK(!a.dequantize || coded_out, "--dequantize: ", a.model,
              " has no output that carries codes (quantize --quantize-io): its outputs are "
              "written as they are");
}

void run_infer(const InferArgs& a) {
  const std::vector<RoleFile> inputs{
      {"--model", a.model}, {"--input", a.input}, {"--image", a.image}};
  // The folder first (a file there fails before the model loads), then its files by name.
  check_distinct_files(
      inputs, {{"--out", a.out, RoleFile::kFolder, [](const std::string&) { return false; }}});
  Graph g = load_onnx(a.model);
  const std::vector<CodedValue> coded = coded_io(g);
  check_coded_options(a, coded);
  std::vector<RoleFile> files;  // each file, named by the model, before it runs
  for (const ValueInfo& o : g.outputs) files.push_back({"--out", output_path(a, o)});
  check_distinct_files(inputs, files);
  Tensor x = make_input(g, a.input, a.image);
  // The model runs in the types its file declares: a coded input takes the codes (a float
  // --input or --image quantized with its encoding, as the float view does; --raw wants them
  // given), a coded output gives them (dequantized with --dequantize).
  ExecutorOptions options = a.run.executor();
  options.float_io = false;
  const std::string& input = g.inputs.at(0).name;
  for (const CodedValue& c : coded)
    if (c.input && c.name == input && x.dtype() == DType::kFloat32) {
      EDGEQ_CHECK(!a.raw || !a.image.empty(), "--raw: --input ", a.input, " is float32; input '",
                  input, "' takes ", dtype_name(c.encoding.dtype()),
                  " codes (without --raw a float input is quantized)");
      x = quantize_tensor(x, TensorEncoding::per_tensor(c.encoding));
    }
  Executor ex(g, options);
  print_notices(ex);
  auto outputs = ex.run({{input, x}});
  if (a.dequantize)
    for (const CodedValue& c : coded)
      if (!c.input)
        outputs.at(c.name) =
            dequantize_tensor(outputs.at(c.name), TensorEncoding::per_tensor(c.encoding));
  ensure_dir(a.out);
  for (const auto& o : g.outputs) {
    const std::string path = output_path(a, o);
    const Tensor& t = outputs.at(o.name);
    save_npy(t, path);
    std::cout << printable(o.name) << " " << dtype_name(t.dtype()) << " " << shape_str(t.shape())
              << " -> " << printable(path) << "\n";
  }
}

}  // namespace

void register_infer(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  auto* cmd = app.add_subcommand(
      "infer",
      "Run a model once; write each output as DIR/<name>.npy in the type the model declares "
      "(the codes of a quantized output; floats with --dequantize)");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  auto* in = cmd->add_option(
      "--input", a->input,
      "input tensor (.npy, the model's shape; float32, or the codes a quantized input takes)");
  auto* im = cmd->add_option("--image", a->image, "image, letterboxed as Ultralytics does");
  in->excludes(im);
  cmd->add_option("--out", a->out, "output folder")->required();
  cmd->add_flag("--raw", a->raw,
                "a model with quantized inputs / outputs (quantize --quantize-io): --input holds "
                "the codes (an --image is quantized after letterboxing); codes out");
  cmd->add_flag("--dequantize", a->dequantize,
                "write quantized outputs (quantize --quantize-io) dequantized to float32");
  add_run_options(cmd, a->run);
  cmd->callback([a] { run_infer(*a); });
}

}  // namespace edgeq::cli
