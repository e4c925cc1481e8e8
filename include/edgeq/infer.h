// One raw run of a model: tensors in the types its file declares in, every graph output out (the
// codes of a quantized-I/O model's outputs, or those dequantized), as NumPy .npy files or in
// memory. What `edgeq infer` does. For float tensors or detections, use Session (edgeq/session.h).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "edgeq/exec_options.h"
#include "edgeq/model.h"

namespace edgeq {

// A tensor of any element type: its values in row-major order, as bytes in this machine's order.
struct RawTensor {
  std::string name;
  std::string dtype;  // "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  // A float32 tensor holding `values` (their count must match the shape's).
  static RawTensor from_floats(std::string name, std::vector<int64_t> shape,
                               const std::vector<float>& values);
  // The values of a float32 tensor; throws for another type.
  std::vector<float> floats() const;
};

// A graph input or output that carries integer codes (a quantized-I/O model): its name, which
// end, and the code type ("uint8", "int16", ...).
struct CodedIo {
  std::string name;
  bool input = false;
  std::string dtype;
};
// The model's inputs and outputs that carry codes (empty for a model with float I/O).
std::vector<CodedIo> coded_io(const Model& model);

// Reads a NumPy .npy file (little-endian, C order); the tensor's name is "". Throws naming the
// file when it is unreadable or not an .npy of a supported type.
RawTensor read_npy(const std::string& path);
// Writes `tensor` as a .npy file (atomically).
void write_npy(const RawTensor& tensor, const std::string& path);
// The image at `path` letterboxed to the model's image input as Ultralytics does: float32
// [1,3,H,W] in 0..1, named after that input. Throws for an unreadable image or a model without
// one image input.
RawTensor letterboxed_input(const Model& model, const std::string& path);

// What the model's file takes for `x` (an input of `model`, by name), as a board is fed it: the
// codes of an input that carries codes (a float32 x quantized with that input's encoding), else x
// as given. Throws for a name that is not an input.
RawTensor model_input(const Model& model, const RawTensor& x);

// The file an output named `output` is written to in `folder`: folder/<name>.npy, with '/', '\'
// and ':' in the name replaced by '_'.
std::string output_npy_path(const std::string& folder, const std::string& output);

struct InferOptions {
  ExecOptions exec;         // exec, emulate, threads
  bool dequantize = false;  // coded outputs dequantized to float32
  // The planner's notices (e.g. ops that run in float under int8), one line each, before the run.
  std::function<void(const std::string& line)> on_notice;
};

// Runs the model once on `inputs` (by name) and returns every graph output in the model's order,
// in the type its file declares (float32 for a coded output when dequantize is set). A float32
// tensor given to a coded input is quantized with that input's encoding. Throws for options out
// of range, dequantize on a model without coded outputs, a missing input or one of the wrong
// shape or type, and an unsupported op.
std::vector<RawTensor> infer(const Model& model, const std::vector<RawTensor>& inputs,
                             const InferOptions& options = {});

}  // namespace edgeq
