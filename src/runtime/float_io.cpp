#include "runtime/float_io.h"

#include "core/error.h"
#include "ir/constants.h"

namespace edgeq {
namespace {

bool is_integer(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16;
}

bool is_qdq(const Node& n, const char* op) {
  return n.op_type == op && (n.domain.empty() || n.domain == "com.microsoft");
}

// The encoding of a Q or DQ node's constant per-tensor parameters, as codes of type `t`.
std::optional<Encoding> parameters(const Graph& g, const Node& n, DType t) {
  if (!n.has_input(1) || n.attr_int("axis", 1) != 1) return std::nullopt;
  const Tensor* s = find_constant(g, n.inputs[1]);
  const Tensor* z = n.has_input(2) ? find_constant(g, n.inputs[2]) : nullptr;
  if (!s || s->numel() != 1 || s->dtype() != DType::kFloat32 || (n.has_input(2) && !z))
    return std::nullopt;
  if (z ? z->numel() != 1 || z->dtype() != t : t != DType::kUInt8) return std::nullopt;
  try {
    return encoding_from_onnx(s->to_floats()[0], z ? z->to_ints()[0] : 0, t);
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool same(const Encoding& a, const Encoding& b) {
  return a.scale == b.scale && a.zero_point() == b.zero_point() && a.dtype() == b.dtype();
}

std::optional<CodedValue> coded_input(const Graph& g, const ValueInfo& in) {
  if (!is_integer(in.dtype)) return std::nullopt;
  std::optional<Encoding> e;
  for (int c : g.consumers_of(in.name)) {
    const Node& n = g.nodes[static_cast<size_t>(c)];
    if (!is_qdq(n, "DequantizeLinear") || n.inputs[0] != in.name) return std::nullopt;
    const auto p = parameters(g, n, in.dtype);
    if (!p || (e && !same(*e, *p))) return std::nullopt;
    e = p;
  }
  if (!e) return std::nullopt;
  return CodedValue{in.name, true, *e};
}

std::optional<CodedValue> coded_output(const Graph& g, const ValueInfo& out) {
  if (!is_integer(out.dtype)) return std::nullopt;
  const int p = g.producer_of(out.name);
  if (p < 0 || !is_qdq(g.nodes[static_cast<size_t>(p)], "QuantizeLinear")) return std::nullopt;
  const auto e = parameters(g, g.nodes[static_cast<size_t>(p)], out.dtype);
  if (!e) return std::nullopt;
  return CodedValue{out.name, false, *e};
}

}  // namespace

std::vector<CodedValue> coded_io(const Graph& g) {
  std::vector<CodedValue> found;
  for (const ValueInfo& in : g.inputs)
    if (auto c = coded_input(g, in)) found.push_back(*c);
  for (const ValueInfo& out : g.outputs)
    if (auto c = coded_output(g, out)) found.push_back(*c);
  return found;
}

std::vector<CodedValue> float_io_view(Graph& g) {
  const std::vector<CodedValue> coded = coded_io(g);
  for (const CodedValue& c : coded) {
    const std::string codes = g.unique_name(c.name + "_codes");
    Node n;
    if (c.input) {
      // The DequantizeLinear nodes read the codes a QuantizeLinear makes of the float input.
      const int reader = g.consumers_of(c.name).at(0);
      n = g.nodes[static_cast<size_t>(reader)];
      for (int r : g.consumers_of(c.name)) g.nodes[static_cast<size_t>(r)].inputs[0] = codes;
      n.op_type = "QuantizeLinear";
      n.name = g.unique_name(c.name + "_QuantizeLinear_view");
      n.inputs[0] = c.name;
      n.outputs = {codes};
      for (ValueInfo& in : g.inputs)
        if (in.name == c.name) in.dtype = DType::kFloat32;
    } else {
      // The QuantizeLinear writes the codes; a DequantizeLinear gives the output its name back.
      Node& q = g.nodes[static_cast<size_t>(g.producer_of(c.name))];
      q.outputs[0] = codes;
      n = q;
      n.op_type = "DequantizeLinear";
      n.name = g.unique_name(c.name + "_DequantizeLinear_view");
      n.inputs[0] = codes;
      n.outputs = {c.name};
      n.attrs.erase("output_dtype");
      n.attrs.erase("saturate");
      for (ValueInfo& out : g.outputs)
        if (out.name == c.name) out.dtype = DType::kFloat32;
    }
    g.nodes.push_back(std::move(n));
  }
  if (!coded.empty()) g.sort_topologically();
  return coded;
}

IoBytes io_bytes(const Graph& g, const std::function<Shape(const std::string&)>& shape_of) {
  IoBytes b;
  for (const ValueInfo& v : g.inputs)
    b.in += shape_numel(shape_of(v.name)) * static_cast<int64_t>(dtype_size(v.dtype));
  for (const ValueInfo& v : g.outputs)
    b.out += shape_numel(shape_of(v.name)) * static_cast<int64_t>(dtype_size(v.dtype));
  return b;
}

}  // namespace edgeq
