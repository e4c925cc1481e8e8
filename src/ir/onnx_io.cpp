#include "ir/onnx_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "core/error.h"
#include "core/file_io.h"

namespace edgeq {
namespace {

template <typename Field, typename T>
void copy_typed(const Field& field, Tensor& t) {
  EDGEQ_CHECK(static_cast<int64_t>(field.size()) == t.numel(), "tensor has ", field.size(),
              " values but its shape ", shape_str(t.shape()), " needs ", t.numel());
  T* out = t.data<T>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<T>(field.Get(i));
}

// How many values the typed field that holds `dt` has.
uint64_t values_held(const onnx::TensorProto& p, DType dt) {
  switch (dt) {
    case DType::kFloat32:
      return static_cast<uint64_t>(p.float_data_size());
    case DType::kFloat64:
      return static_cast<uint64_t>(p.double_data_size());
    case DType::kInt64:
      return static_cast<uint64_t>(p.int64_data_size());
    default:
      return static_cast<uint64_t>(p.int32_data_size());
  }
}

Tensor tensor_from_proto(const onnx::TensorProto& p) {
  const std::string name = p.name().empty() ? "(unnamed)" : p.name();
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    fail("tensor '", name,
         "' uses external data, which edgeq does not read yet; re-export with "
         "the weights inside the .onnx file");
  DType dt;
  try {
    dt = dtype_from_onnx(p.data_type());
  } catch (const Error&) {
    fail("tensor '", name, "' has unsupported data type ", p.data_type());
  }
  Shape shape(p.dims().begin(), p.dims().end());
  // The element count, checked before allocating: a damaged file can claim any shape.
  uint64_t numel = 1;
  bool too_big = false;
  for (int64_t d : shape) {
    EDGEQ_CHECK(d >= 0, "tensor '", name, "' has a negative dimension: ", shape_str(shape));
    too_big |= d > 0 && numel > (uint64_t(1) << 40) / uint64_t(d);
    numel *= too_big ? 1 : uint64_t(d);
  }
  EDGEQ_CHECK(!too_big, "tensor '", name, "' has over 2^40 elements: ", shape_str(shape));
  if (p.has_raw_data()) {
    const uint64_t need = numel * dtype_size(dt), have = p.raw_data().size();
    EDGEQ_CHECK(have == need, "tensor '", name, "' holds ", have, " bytes but its shape ",
                shape_str(shape), " needs ", need, " (truncated model?)");
  } else {
    const uint64_t have = values_held(p, dt);
    EDGEQ_CHECK(have == numel, "tensor '", name, "' has ", have, " values but its shape ",
                shape_str(shape), " needs ", numel, " (truncated model?)");
  }
  Tensor t(dt, shape);
  if (p.has_raw_data()) {
    if (t.nbytes()) std::memcpy(t.raw(), p.raw_data().data(), t.nbytes());
    return t;
  }
  switch (dt) {
    case DType::kFloat32:
      copy_typed<decltype(p.float_data()), float>(p.float_data(), t);
      break;
    case DType::kFloat64:
      copy_typed<decltype(p.double_data()), double>(p.double_data(), t);
      break;
    case DType::kInt64:
      copy_typed<decltype(p.int64_data()), int64_t>(p.int64_data(), t);
      break;
    case DType::kInt32:
      copy_typed<decltype(p.int32_data()), int32_t>(p.int32_data(), t);
      break;
    case DType::kInt16:
      copy_typed<decltype(p.int32_data()), int16_t>(p.int32_data(), t);
      break;
    case DType::kUInt16:
      copy_typed<decltype(p.int32_data()), uint16_t>(p.int32_data(), t);
      break;
    case DType::kInt8:
      copy_typed<decltype(p.int32_data()), int8_t>(p.int32_data(), t);
      break;
    case DType::kUInt8:
      copy_typed<decltype(p.int32_data()), uint8_t>(p.int32_data(), t);
      break;
    case DType::kBool:
      copy_typed<decltype(p.int32_data()), bool>(p.int32_data(), t);
      break;
    default:
      fail("tensor '", name, "': cannot read data type ", dtype_name(dt));
  }
  return t;
}

void tensor_to_proto(const std::string& name, const Tensor& t, onnx::TensorProto* p) {
  p->set_name(name);
  p->set_data_type(static_cast<int>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  p->set_raw_data(std::string(static_cast<const char*>(t.raw()), t.nbytes()));
}

ValueInfo value_info_from_proto(const onnx::ValueInfoProto& v) {
  ValueInfo vi;
  vi.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    vi.dtype = static_cast<DType>(tt.elem_type());
    if (tt.has_shape())
      for (const auto& d : tt.shape().dim())
        vi.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  return vi;
}

void value_info_to_proto(const ValueInfo& vi, onnx::ValueInfoProto* v) {
  v->set_name(vi.name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int>(vi.dtype));
  auto* shape = tt->mutable_shape();
  for (int64_t d : vi.shape) {
    auto* dim = shape->add_dim();
    if (d >= 0)
      dim->set_dim_value(d);
    else
      dim->set_dim_param("?");
  }
}

Attribute attribute_from_proto(const onnx::AttributeProto& a, const std::string& node) {
  Attribute out;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out.kind = Attribute::Kind::kInt;
      out.i = a.i();
      break;
    case onnx::AttributeProto::FLOAT:
      out.kind = Attribute::Kind::kFloat;
      out.f = a.f();
      break;
    case onnx::AttributeProto::STRING:
      out.kind = Attribute::Kind::kString;
      out.s = a.s();
      break;
    case onnx::AttributeProto::INTS:
      out.kind = Attribute::Kind::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      out.kind = Attribute::Kind::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::STRINGS:
      out.kind = Attribute::Kind::kStrings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSOR:
      out.kind = Attribute::Kind::kTensor;
      out.t = tensor_from_proto(a.t());
      break;
    default:
      fail("node '", node, "': attribute '", a.name(), "' has an unsupported type (", a.type(),
           ")");
  }
  return out;
}

void attribute_to_proto(const std::string& key, const Attribute& a, onnx::AttributeProto* p) {
  p->set_name(key);
  switch (a.kind) {
    case Attribute::Kind::kInt:
      p->set_type(onnx::AttributeProto::INT);
      p->set_i(a.i);
      break;
    case Attribute::Kind::kFloat:
      p->set_type(onnx::AttributeProto::FLOAT);
      p->set_f(a.f);
      break;
    case Attribute::Kind::kString:
      p->set_type(onnx::AttributeProto::STRING);
      p->set_s(a.s);
      break;
    case Attribute::Kind::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (auto v : a.ints) p->add_ints(v);
      break;
    case Attribute::Kind::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (auto v : a.floats) p->add_floats(v);
      break;
    case Attribute::Kind::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& v : a.strings) p->add_strings(v);
      break;
    case Attribute::Kind::kTensor:
      p->set_type(onnx::AttributeProto::TENSOR);
      tensor_to_proto("", a.t, p->mutable_t());
      break;
  }
}

}  // namespace

Graph parse_onnx(const std::string& bytes, const std::string& what) {
  onnx::ModelProto m;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (bytes.empty() || !m.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    fail(what, " is not a valid ONNX model (truncated or not a protobuf ModelProto)");
  if (!m.has_graph() || m.ir_version() <= 0 || m.graph().node_size() == 0)
    fail(what, " is not an ONNX model: no graph, nodes or IR version found");
  Graph g;
  const auto& gp = m.graph();
  g.name = gp.name();
  g.ir_version = m.ir_version();
  g.producer_name = m.producer_name();
  g.producer_version = m.producer_version();
  g.doc_string = m.doc_string();
  g.opsets.clear();
  for (const auto& o : m.opset_import()) g.opsets.push_back({o.domain(), o.version()});
  for (const auto& p : m.metadata_props()) g.metadata.emplace_back(p.key(), p.value());
  for (const auto& t : gp.initializer()) g.initializers[t.name()] = tensor_from_proto(t);
  for (const auto& v : gp.input())
    if (!g.initializers.count(v.name())) g.inputs.push_back(value_info_from_proto(v));
  for (const auto& v : gp.output()) g.outputs.push_back(value_info_from_proto(v));
  for (const auto& v : gp.value_info()) g.value_info.push_back(value_info_from_proto(v));
  for (const auto& np : gp.node()) {
    Node n;
    n.name = np.name();
    n.op_type = np.op_type();
    n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) n.attrs[a.name()] = attribute_from_proto(a, n.name);
    g.nodes.push_back(std::move(n));
  }
  return g;
}

Tensor parse_onnx_tensor(const std::string& bytes, const std::string& what) {
  onnx::TensorProto p;
  if (bytes.empty() || !p.ParseFromString(bytes))
    fail(what, " is not a valid ONNX tensor (truncated or not a protobuf TensorProto)");
  return tensor_from_proto(p);
}

namespace {

// A ModelProto starts with one of its fields' tags (protobuf writes them by field number; ONNX's
// writers start with ir_version, 0x08): a file that starts otherwise is no ONNX model, and is
// refused before the rest of it (up to 2 GiB) is read.
void check_model_head(const std::string& head, const std::string& path) {
  const auto b = head.empty() ? 0 : static_cast<unsigned char>(head[0]);
  const auto b1 = head.size() < 2 ? 0 : static_cast<unsigned char>(head[1]);
  const bool tag = b == 0x08 || b == 0x12 || b == 0x1a || b == 0x22 || b == 0x28 || b == 0x32 ||
                   b == 0x3a || b == 0x42 || b == 0x72 || ((b == 0xa2 || b == 0xca) && b1 == 0x01);
  if (!tag) fail(path, " is not a valid ONNX model (truncated or not a protobuf ModelProto)");
}

}  // namespace

std::string read_onnx_file(const std::string& path) {
  return read_file_of_format(path, kMaxModelBytes, 2,
                             [&](const std::string& head) { check_model_head(head, path); });
}

Graph load_onnx(const std::string& path) {
  return parse_onnx(read_onnx_file(path), path);
}

std::string serialize_onnx(const Graph& g) {
  onnx::ModelProto m;
  m.set_ir_version(g.ir_version);
  m.set_producer_name(g.producer_name);
  m.set_producer_version(g.producer_version);
  if (!g.doc_string.empty()) m.set_doc_string(g.doc_string);
  for (const auto& o : g.opsets) {
    auto* op = m.add_opset_import();
    op->set_domain(o.domain);
    op->set_version(o.version);
  }
  for (const auto& kv : g.metadata) {
    auto* p = m.add_metadata_props();
    p->set_key(kv.first);
    p->set_value(kv.second);
  }
  auto* gp = m.mutable_graph();
  gp->set_name(g.name);
  for (const auto& vi : g.inputs) value_info_to_proto(vi, gp->add_input());
  for (const auto& vi : g.outputs) value_info_to_proto(vi, gp->add_output());
  for (const auto& vi : g.value_info) value_info_to_proto(vi, gp->add_value_info());
  for (const auto& kv : g.initializers) tensor_to_proto(kv.first, kv.second, gp->add_initializer());
  for (const auto& n : g.nodes) {
    auto* np = gp->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    if (!n.domain.empty()) np->set_domain(n.domain);
    for (const auto& in : n.inputs) np->add_input(in);
    for (const auto& o : n.outputs) np->add_output(o);
    for (const auto& kv : n.attrs) attribute_to_proto(kv.first, kv.second, np->add_attribute());
  }
  std::string out;
  if (!m.SerializeToString(&out)) fail("failed to serialize ONNX model (over 2 GB?)");
  return out;
}

void save_onnx(const Graph& g, const std::string& path) {
  write_file_atomic(path, serialize_onnx(g));
}

}  // namespace edgeq
