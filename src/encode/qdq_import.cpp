#include "encode/qdq_import.h"

#include "core/error.h"
#include "core/text_format.h"

namespace edgeq {
namespace {

bool is_qdq_domain(const std::string& d) {
  return d.empty() || d == "com.microsoft";
}

class Reader {
 public:
  explicit Reader(const Graph& g) : g_(g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const std::string& o : n.outputs) producer_[o] = &n;
      if (n.op_type == "Constant" && n.has_attr("value") && n.outputs.size() == 1)
        constants_[n.outputs[0]] = &n.attrs.at("value").t;
    }
    for (const auto& kv : g.initializers) constants_[kv.first] = &kv.second;
  }

  EncodingSet read() {
    EncodingSet set;
    for (const Node& dq : g_.nodes) {
      if (dq.op_type != "DequantizeLinear" || !is_qdq_domain(dq.domain) || !dq.has_input(1))
        continue;
      const Tensor* scale = constant(dq.inputs[1]);
      if (!scale) continue;  // parameters computed at run time: no static encoding
      const Tensor* zp = dq.has_input(2) ? constant(dq.inputs[2]) : nullptr;
      if (dq.has_input(2) && !zp) continue;
      const std::string& x = dq.inputs[0];
      if (const Tensor* data = constant(x)) {
        std::string name = strip_suffix(dq.outputs.at(0), "_DequantizeLinear_Output");
        set.params[name] = encoding(dq, *scale, zp, data->dtype(), data->rank());
      } else if (auto p = producer_.find(x); p != producer_.end() &&
                                             p->second->op_type == "QuantizeLinear" &&
                                             is_qdq_domain(p->second->domain)) {
        const Node& q = *p->second;
        DType qt = zp ? zp->dtype() : output_type(q);
        std::string name = strip_suffix(q.inputs.at(0), "_QuantizeLinear_Input");
        if (!set.activations.count(name)) set.activations[name] = encoding(dq, *scale, zp, qt, -1);
      }
    }
    return set;
  }

 private:
  const Tensor* constant(const std::string& v) const {
    auto it = constants_.find(v);
    return it == constants_.end() ? nullptr : it->second;
  }

  static DType output_type(const Node& q) {
    int64_t od = q.attr_int("output_dtype", 0);
    return od ? dtype_from_onnx(static_cast<int>(od)) : DType::kUInt8;
  }

  TensorEncoding encoding(const Node& dq, const Tensor& scale, const Tensor* zp, DType qt,
                          int64_t data_rank) const {
    EDGEQ_CHECK(scale.dtype() == DType::kFloat32, dq.describe(), ": scale type ",
                dtype_name(scale.dtype()), " not supported");
    std::vector<float> s = scale.to_floats();
    std::vector<int64_t> z = zp ? zp->to_ints() : std::vector<int64_t>(s.size(), 0);
    EDGEQ_CHECK(!s.empty() && z.size() == s.size(), dq.describe(),
                ": scale and zero point sizes differ");
    TensorEncoding te;
    if (s.size() > 1) {
      int64_t axis = dq.attr_int("axis", 1);
      if (axis < 0 && data_rank > 0) axis += data_rank;
      te.axis = axis;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      try {
        te.channels.push_back(encoding_from_onnx(s[i], z[i], qt));
      } catch (const Error& e) {
        fail(dq.describe(), ": ", e.what());
      }
    }
    return te;
  }

  const Graph& g_;
  std::map<std::string, const Node*> producer_;
  std::map<std::string, const Tensor*> constants_;
};

}  // namespace

EncodingSet encodings_from_qdq(const Graph& g) {
  return Reader(g).read();
}

}  // namespace edgeq
