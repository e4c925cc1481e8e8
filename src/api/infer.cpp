// Raw runs (edgeq/infer.h): the executor with the types the file declares (float_io off), a float
// input to a coded input quantized with its encoding as the float view does, .npy in and out.
#include "edgeq/infer.h"

#include <cstring>

#include "api/api_impl.h"
#include "api/exec_options.h"
#include "core/error.h"
#include "core/npy.h"
#include "core/tensor.h"
#include "encode/weight_encoding.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

DType dtype_named(const std::string& name) {
  for (DType t : {DType::kFloat32, DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kBool, DType::kFloat64})
    if (dtype_name(t) == name) return t;
  fail("unknown element type '", name, "'");
}

RawTensor raw_of(const Tensor& t, std::string name) {
  RawTensor r;
  r.name = std::move(name);
  r.dtype = dtype_name(t.dtype());
  r.shape = t.shape();
  const auto* p = static_cast<const uint8_t*>(t.raw());
  r.bytes.assign(p, p + t.nbytes());
  return r;
}

Tensor tensor_of(const RawTensor& r) {
  const std::string what = r.name.empty() ? "tensor" : "tensor '" + r.name + "'";
  for (int64_t d : r.shape) EDGEQ_CHECK(d >= 0, what, ": negative dimension");
  Tensor t(dtype_named(r.dtype), r.shape);
  EDGEQ_CHECK(t.nbytes() == r.bytes.size(), what, ": shape ", shape_str(r.shape), " of ", r.dtype,
              " holds ", t.nbytes(), " bytes, got ", r.bytes.size());
  if (!r.bytes.empty()) std::memcpy(t.raw(), r.bytes.data(), r.bytes.size());
  return t;
}

}  // namespace

RawTensor RawTensor::from_floats(std::string name, std::vector<int64_t> shape,
                                 const std::vector<float>& values) {
  RawTensor r;
  r.name = std::move(name);
  r.dtype = "float32";
  r.shape = std::move(shape);
  const auto* p = reinterpret_cast<const uint8_t*>(values.data());
  r.bytes.assign(p, p + values.size() * sizeof(float));
  tensor_of(r);  // the count checked against the shape
  return r;
}

std::vector<float> RawTensor::floats() const {
  EDGEQ_CHECK(dtype == "float32", "tensor '", name, "' is ", dtype, ", not float32");
  std::vector<float> v(bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

std::vector<CodedIo> coded_io(const Model& model) {
  std::vector<CodedIo> out;
  for (const CodedValue& c : coded_io(impl_of(model).graph))
    out.push_back({c.name, c.input, dtype_name(c.encoding.dtype())});
  return out;
}

RawTensor read_npy(const std::string& path) {
  return raw_of(load_npy(path), "");
}

void write_npy(const RawTensor& tensor, const std::string& path) {
  save_npy(tensor_of(tensor), path);
}

RawTensor letterboxed_input(const Model& model, const std::string& path) {
  const Graph& g = impl_of(model).graph;
  const cv::Mat bgr = read_image(path);
  return raw_of(preprocess_image(bgr, yolo_input_height(g), yolo_input_width(g), nullptr),
                yolo_image_input(g).name);
}

RawTensor model_input(const Model& model, const RawTensor& x) {
  const Graph& g = impl_of(model).graph;
  EDGEQ_CHECK(g.find_input(x.name), "'", x.name, "' is not an input of ", model.name());
  for (const CodedValue& c : coded_io(g))
    if (c.input && c.name == x.name && x.dtype == "float32")
      return raw_of(quantize_tensor(tensor_of(x), TensorEncoding::per_tensor(c.encoding)), x.name);
  return x;
}

std::string output_npy_path(const std::string& folder, const std::string& output) {
  std::string name = output;
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return folder + "/" + name + ".npy";
}

std::vector<RawTensor> infer(const Model& model, const std::vector<RawTensor>& inputs,
                             const InferOptions& o) {
  const Graph& g = impl_of(model).graph;
  ExecutorOptions options = executor_options(o.exec);
  options.float_io = false;
  const std::vector<CodedValue> coded = coded_io(g);
  bool coded_out = false;
  for (const CodedValue& c : coded) coded_out = coded_out || !c.input;
  EDGEQ_CHECK(!o.dequantize || coded_out, "dequantize: ", model.name(),
              " has no output that carries codes: its outputs are returned as they are");
  std::map<std::string, Tensor> in;
  for (const RawTensor& r : inputs) in[r.name] = tensor_of(model_input(model, r));
  Executor ex(g, options);
  if (o.on_notice)
    for (const std::string& line : ex.notices()) o.on_notice(line);
  std::map<std::string, Tensor> outputs = ex.run(in);
  if (o.dequantize)
    for (const CodedValue& c : coded)
      if (!c.input)
        outputs.at(c.name) =
            dequantize_tensor(outputs.at(c.name), TensorEncoding::per_tensor(c.encoding));
  std::vector<RawTensor> result;
  for (const ValueInfo& v : g.outputs) result.push_back(raw_of(outputs.at(v.name), v.name));
  return result;
}

}  // namespace edgeq
