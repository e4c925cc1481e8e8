// edgeq infer: run a model once and write every graph output as DIR/<name>.npy.
#include "edgeq/infer.h"

#include <algorithm>
#include <iostream>

#include "commands.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/model.h"
#include "edgeq/model_tools.h"
#include "edgeq/text.h"
#include "run_options.h"

namespace edgeq::cli {
namespace {

struct InferArgs {
  std::string model, input, image, out;
  bool raw = false, dequantize = false, save_input = false;
  RunOptions run;
};

// Options that change how codes are read or written do nothing on a model whose inputs and
// outputs carry none: refused, as any option that does nothing here.
void check_coded_options(const InferArgs& a, const std::vector<CodedIo>& coded) {
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
  const ExecOptions exec = exec_options(a.run);  // before any file is read
  const std::vector<RoleFile> inputs{
      {"--model", a.model}, {"--input", a.input}, {"--image", a.image}};
  // The folder first (a file there fails before the model loads), then its files by name.
  check_distinct_files(
      inputs, {{"--out", a.out, RoleFile::kFolder, [](const std::string&) { return false; }}});
  const Model model = Model::load(a.model);
  const std::vector<CodedIo> coded = coded_io(model);
  check_coded_options(a, coded);
  const std::vector<ValueDescription> outputs = model.outputs();
  std::vector<RoleFile> files;  // each file, named by the model, before it runs
  for (const ValueDescription& o : outputs)
    files.push_back({"--out", output_npy_path(a.out, o.name)});
  const std::string input_file = output_npy_path(a.out, model.inputs().at(0).name);
  if (a.save_input) files.push_back({"--save-input", input_file});
  check_distinct_files(inputs, files);
  EDGEQ_CHECK(a.input.empty() != a.image.empty(), "give exactly one of --input and --image");
  RawTensor x = a.input.empty() ? letterboxed_input(model, a.image) : read_npy(a.input);
  // The model runs in the types its file declares: a coded input takes the codes (a float
  // --input or --image quantized with its encoding, as the float view does; --raw wants them
  // given), a coded output gives them (dequantized with --dequantize).
  x.name = model.inputs().at(0).name;
  for (const CodedIo& c : coded)
    if (c.input && c.name == x.name && x.dtype == "float32")
      EDGEQ_CHECK(!a.raw || !a.image.empty(), "--raw: --input ", a.input, " is float32; input '",
                  x.name, "' takes ", c.dtype, " codes (without --raw a float input is quantized)");
  InferOptions options;
  options.exec = exec;
  options.dequantize = a.dequantize;
  options.on_notice = [](const std::string& line) { std::cerr << printable(line) << "\n"; };
  const std::vector<RawTensor> results = infer(model, {x}, options);
  ensure_dir(a.out);
  if (a.save_input) {  // what a board is fed: letterboxed, NCHW, the codes of a coded input
    const RawTensor fed = model_input(model, x);
    write_npy(fed, input_file);
    std::cout << "input " << printable(fed.name) << " " << fed.dtype << " " << shape_text(fed.shape)
              << " -> " << printable(input_file) << "\n";
  }
  for (const RawTensor& t : results) {
    const std::string path = output_npy_path(a.out, t.name);
    write_npy(t, path);
    std::cout << printable(t.name) << " " << t.dtype << " " << shape_text(t.shape) << " -> "
              << printable(path) << "\n";
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
  cmd->add_flag("--save-input", a->save_input,
                "also write the input as the model's file takes it (letterboxed, NCHW; a quantized "
                "input's codes) to DIR/<input>.npy: what a board is fed for the same run");
  add_run_options(cmd, a->run);
  cmd->callback([a] { run_infer(*a); });
}

}  // namespace edgeq::cli
