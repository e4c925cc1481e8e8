#include "encode/quantize_io.h"

#include "core/error.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

constexpr const char* kContribDomain = "com.microsoft";

Tensor zero_point_tensor(const Encoding& e) {
  Tensor z(e.dtype(), Shape{});
  visit_dtype(e.dtype(), [&](auto v) {
    using T = decltype(v);
    z.data<T>()[0] = static_cast<T>(e.zero_point());
  });
  return z;
}

// Scale and zero point initializers for `e`, named after `value`; returns their names.
std::pair<std::string, std::string> add_parameters(Graph& g, const std::string& value,
                                                   const Encoding& e) {
  const std::string s = g.unique_name(value + "_io_scale");
  g.initializers[s] = Tensor::from_vector<float>(Shape{}, {e.scale});
  const std::string z = g.unique_name(value + "_io_zero_point");
  g.initializers[z] = zero_point_tensor(e);
  return {s, z};
}

// The domain a Q/DQ of `t` is written in: ONNX's own from opset 21 (16-bit types) or for 8 bit,
// else Microsoft's contrib ops, which ONNX Runtime runs at any opset.
std::string domain_for(Graph& g, DType t) {
  if (t == DType::kUInt8 || t == DType::kInt8 || g.opset("") >= 21) return "";
  if (g.opset(kContribDomain) <= 0) g.set_opset(kContribDomain, 1);
  return kContribDomain;
}

// Appends `op` (QuantizeLinear or DequantizeLinear) from `from` to `to` with e's parameters,
// named after the graph input or output `end`.
void add_conversion(Graph& g, const std::string& op, const std::string& from, const std::string& to,
                    const std::string& end, const Encoding& e) {
  const auto [s, z] = add_parameters(g, end, e);
  Node n;
  n.name = g.unique_name(end + "_" + op + "_IO");
  n.op_type = op;
  n.domain = domain_for(g, e.dtype());
  n.inputs = {from, s, z};
  n.outputs = {to};
  g.nodes.push_back(std::move(n));
}

void quantize_image_input(QdqModel& q) {
  Graph& g = q.graph;
  ValueInfo& in = g.inputs.at(0);
  yolo_image_input(g);  // one image input [N,3,H,W], or a message saying what there is
  EDGEQ_CHECK(in.dtype == DType::kFloat32, "quantize-io in: input '", in.name, "' is ",
              dtype_name(in.dtype), ", not float");
  const Encoding e = image_code_encoding();
  // Named as what the input's QuantizeLinear reads, so views and reports name it as the input.
  const std::string pixels = g.unique_name(in.name + "_QuantizeLinear_Input");
  for (Node& n : g.nodes)
    for (std::string& i : n.inputs)
      if (i == in.name) i = pixels;
  add_conversion(g, "DequantizeLinear", in.name, pixels, in.name, e);
  in.dtype = e.dtype();
  q.encodings.io[in.name] = TensorEncoding::per_tensor(e);
}

TensorEncoding output_encoding(const QdqModel& q, const std::string& name, const Stats& stats) {
  auto it = q.encodings.activations.find(name);
  if (it != q.encodings.activations.end() && !it->second.is_float && !it->second.per_channel() &&
      it->second.channels.at(0).bitwidth == 16)
    return it->second;  // its own: the codes carry exactly what the float output did
  const Histogram& h = stats.at(name);
  return TensorEncoding::per_tensor(encoding_from_range(h.min(), h.max(), 16, false, false));
}

void quantize_output(QdqModel& q, ValueInfo& out, const Stats& stats) {
  Graph& g = q.graph;
  EDGEQ_CHECK(out.dtype == DType::kFloat32, "quantize-io out: output '", out.name, "' is ",
              dtype_name(out.dtype), ", not float");
  const int producer = g.producer_of(out.name);
  EDGEQ_CHECK(producer >= 0, "quantize-io out: output '", out.name,
              "' is not computed by the model (a graph input or a constant)");
  const TensorEncoding te = output_encoding(q, out.name, stats);
  const Encoding& e = te.channels.at(0);
  // The float value keeps a name that QDQ readers map back to the output's (qdq_view.h).
  const bool dequantized = g.nodes[static_cast<size_t>(producer)].op_type == "DequantizeLinear";
  const std::string value = g.unique_name(
      out.name + (dequantized ? "_DequantizeLinear_Output" : "_QuantizeLinear_Input"));
  for (std::string& o : g.nodes[static_cast<size_t>(producer)].outputs)
    if (o == out.name) o = value;
  for (Node& n : g.nodes)
    for (std::string& i : n.inputs)
      if (i == out.name) i = value;
  add_conversion(g, "QuantizeLinear", value, out.name, out.name, e);
  out.dtype = e.dtype();
  q.encodings.io[out.name] = te;
}

}  // namespace

Encoding image_code_encoding() {
  return encoding_from_range(0.0, 1.0, 8, false, false);
}

void quantize_io(QdqModel& q, QuantizeIo io, const Stats& stats) {
  if (io == QuantizeIo::kNone) return;
  if (io == QuantizeIo::kIn || io == QuantizeIo::kBoth) quantize_image_input(q);
  if (io == QuantizeIo::kOut || io == QuantizeIo::kBoth)
    for (ValueInfo& out : q.graph.outputs) quantize_output(q, out, stats);
  q.graph.sort_topologically();
}

}  // namespace edgeq
