#include "ir/shape_inference.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "core/error.h"
#include "ir/onnx_io.h"

namespace edgeq {
namespace {

void collect(const onnx::ValueInfoProto& v, std::map<std::string, ValueInfo>& out) {
  if (!v.type().has_tensor_type() || v.type().tensor_type().elem_type() == 0) return;
  const auto& tt = v.type().tensor_type();
  ValueInfo vi;
  vi.name = v.name();
  try {
    vi.dtype = dtype_from_onnx(tt.elem_type());
  } catch (const Error&) {
    return;  // a type edgeq does not hold
  }
  if (!tt.has_shape()) return;
  for (const auto& d : tt.shape().dim()) vi.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
  out[vi.name] = std::move(vi);
}

}  // namespace

std::map<std::string, ValueInfo> infer_value_infos(const Graph& g) {
  onnx::ModelProto m;
  if (!m.ParseFromString(serialize_onnx(g)))
    fail("internal error: cannot re-read the serialized model '", g.name, "'");
  // Declared output types may be placeholders (a cut's new outputs): inference replaces them.
  for (auto& o : *m.mutable_graph()->mutable_output()) o.clear_type();
  // Node-level errors (unknown domains, ops newer than libonnx) leave those values unknown;
  // data propagation works out Reshape targets computed from Shape.
  onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0,
                                      /*data_prop=*/true);
  try {
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    const size_t nl = msg.find('\n');
    fail("shape inference failed on model '", g.name, "': ", msg.substr(0, nl));
  }
  std::map<std::string, ValueInfo> out;
  for (const auto& v : m.graph().input()) collect(v, out);
  for (const auto& v : m.graph().value_info()) collect(v, out);
  for (const auto& v : m.graph().output()) collect(v, out);
  for (const auto& [name, t] : g.initializers) out[name] = {name, t.dtype(), t.shape()};
  return out;
}

void infer_output_shapes(Graph& g) {
  const std::map<std::string, ValueInfo> known = infer_value_infos(g);
  for (ValueInfo& o : g.outputs) {
    auto it = known.find(o.name);
    EDGEQ_CHECK(it != known.end(), "cannot infer the type and shape of output '", o.name,
                "' of model '", g.name, "'");
    o.dtype = it->second.dtype;
    o.shape = it->second.shape;
  }
}

}  // namespace edgeq
