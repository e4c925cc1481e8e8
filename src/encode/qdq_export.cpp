#include "encode/qdq_export.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "core/error.h"
#include "encode/exact_encoding.h"
#include "encode/saturation_safe.h"
#include "ir/opset_upgrade.h"

namespace edgeq {
namespace {

constexpr const char* kContribDomain = "com.microsoft";

class QdqWriter {
 public:
  QdqWriter(const Graph& src, const QuantPlan& plan,
            const std::map<std::string, TensorEncoding>& activations, const QuantConfig& cfg,
            const std::map<std::string, TensorEncoding>& fixed_weights)
      : src_(src), plan_(plan), acts_(activations), cfg_(cfg), fixed_weights_(fixed_weights) {
    out_.graph = src;
    for (const ValueInfo& in : src.inputs) used_.insert(in.name);
    for (const auto& kv : src.initializers) used_.insert(kv.first);
    for (size_t i = 0; i < src.nodes.size(); ++i) {
      const Node& n = src.nodes[i];
      used_.insert(n.name);
      used_.insert(n.outputs.begin(), n.outputs.end());
      for (const std::string& o : n.outputs) producer_[o] = static_cast<int>(i);
      if (n.op_type == "Constant" && n.domain.empty() && n.has_attr("value") &&
          n.outputs.size() == 1)
        constant_nodes_[n.outputs[0]] = static_cast<int>(i);
    }
  }

  QdqModel run() {
    choose_domains();
    for (int ni : plan_.quantized_nodes) quantize_params_of(src_.nodes[ni]);
    for (const std::string& v : plan_.activations) wrap_activation(v);
    Graph& g = out_.graph;
    // Drop Constant nodes whose value now comes from a DequantizeLinear.
    std::vector<Node> kept;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (!dropped_nodes_.count(static_cast<int>(i))) kept.push_back(std::move(g.nodes[i]));
    for (Node& n : new_nodes_) kept.push_back(std::move(n));
    g.nodes = std::move(kept);
    g.sort_topologically();
    return std::move(out_);
  }

 private:
  // ---- domains and opsets ----
  void choose_domains() {
    bool any16 = cfg_.weight_bits == 16;
    for (const auto& kv : acts_)
      if (!kv.second.is_float && kv.second.channels.at(0).bitwidth == 16) any16 = true;
    Graph& g = out_.graph;
    int64_t opset = g.opset("");
    if (any16 && cfg_.qdq16 == Qdq16::kOpset21) {
      upgrade_to_opset21(g);
    } else if (any16 && (cfg_.qdq16 == Qdq16::kContrib || opset < 21)) {
      contrib16_ = true;
      g.set_opset(kContribDomain, 1);
    }
    opset = g.opset("");
    EDGEQ_CHECK(opset >= 13, "model opset ", opset,
                " is below 13: per-channel DequantizeLinear needs opset 13 (re-export the model)");
  }

  std::string domain_for(DType t) const {
    return contrib16_ && (t == DType::kUInt16 || t == DType::kInt16) ? kContribDomain : "";
  }

  // ---- constants ----
  const Tensor* constant(const std::string& v) const {
    auto it = src_.initializers.find(v);
    if (it != src_.initializers.end()) return &it->second;
    auto c = constant_nodes_.find(v);
    if (c != constant_nodes_.end()) return &src_.nodes[c->second].attrs.at("value").t;
    return nullptr;
  }
  const Tensor* float_constant(const Node& n, size_t i) const {
    if (!n.has_input(i)) return nullptr;
    const Tensor* t = constant(n.inputs[i]);
    return t && t->dtype() == DType::kFloat32 ? t : nullptr;
  }

  // ---- parameters ----
  void quantize_params_of(const Node& n) {
    const std::string& op = n.op_type;
    const Tensor* wt = float_constant(n, 1);
    const bool has_weight = wt && weight_channel_axis(n, *wt).has_value();
    if (has_weight) {
      const std::string& w = n.inputs[1];
      if (!out_.encodings.params.count(w)) {
        auto fixed = fixed_weights_.find(w);
        add_param(
            w, fixed != fixed_weights_.end() ? fixed->second : node_weight_encoding(n, *wt, cfg_),
            cfg_.saturation_safe && op == "Conv" && wt->rank() == 4);
      }
      if ((op == "Conv" || op == "ConvTranspose" || op == "Gemm") && float_constant(n, 2))
        quantize_bias(n, out_.encodings.params.at(w));
    }
    for (size_t i : data_inputs(n)) {
      if (has_weight && i == 1) continue;
      const Tensor* t = float_constant(n, i);
      if (!t || out_.encodings.params.count(n.inputs[i]) || t->numel() == 0) continue;
      add_param(n.inputs[i], constant_encoding(*t, n.inputs[i], n));
    }
  }

  // A constant read by a quantized node: exact (encode/exact_encoding.h) at the node's activation
  // width when its values lie on a grid that fits, else 16 bit when the node writes a value of
  // the YOLO decode tail, else from its own min / max.
  TensorEncoding constant_encoding(const Tensor& t, const std::string& name, const Node& n) const {
    const float* x = t.data<float>();
    const auto count = static_cast<size_t>(t.numel());
    double lo = 0, hi = 0;
    for (size_t i = 0; i < count; ++i) {
      EDGEQ_CHECK(std::isfinite(x[i]), "constant '", name, "' of ", n.describe(), " holds ", x[i]);
      lo = std::min(lo, static_cast<double>(x[i]));
      hi = std::max(hi, static_cast<double>(x[i]));
    }
    const bool symmetric = cfg_.activation_symmetric;
    int bits = activation_bits_of(n);
    if (auto e = exact_encoding(x, count, bits, symmetric)) return TensorEncoding::per_tensor(*e);
    if (bits < 16 && writes_decode_tail(n)) {
      bits = 16;
      if (auto e = exact_encoding(x, count, bits, symmetric)) return TensorEncoding::per_tensor(*e);
    }
    return TensorEncoding::per_tensor(encoding_from_range(lo, hi, bits, symmetric));
  }

  // The widest encoding among the node's quantized activations (inputs and outputs), at least
  // the configured activation width.
  int activation_bits_of(const Node& n) const {
    int bits = cfg_.activation_bits;
    auto widen = [&](const std::string& v) {
      auto it = acts_.find(v);
      if (it != acts_.end() && !it->second.is_float && plan_.is_quantized(v))
        bits = std::max(bits, it->second.channels.at(0).bitwidth);
    };
    for (const std::string& v : n.inputs) widen(v);
    for (const std::string& v : n.outputs) widen(v);
    return bits;
  }

  bool writes_decode_tail(const Node& n) const {
    for (const std::string& v : n.outputs)
      if (cfg_.decode_tail.count(v)) return true;
    return false;
  }

  void quantize_bias(const Node& n, const TensorEncoding& w) {
    const std::string& b = n.inputs[2];
    if (out_.encodings.params.count(b)) return;
    auto in = acts_.find(n.inputs[0]);
    if (in == acts_.end() || in->second.is_float || !plan_.is_quantized(n.inputs[0])) return;
    const Tensor* bt = float_constant(n, 2);
    int64_t channels = bt->numel();
    if (w.per_channel() && (bt->rank() != 1 || channels != static_cast<int64_t>(w.channels.size())))
      return;  // a bias that does not line up with the weight's channels stays float
    for (int64_t i = 0; i < channels; ++i)
      EDGEQ_CHECK(std::isfinite(bt->data<float>()[i]), "bias '", b, "' of ", n.describe(),
                  " holds ", bt->data<float>()[i]);
    add_param(b, bias_encoding(in->second.channels.at(0), w, channels));
  }

  // Replaces constant `name` by quantized data + DequantizeLinear writing `name`. `pairs_safe`: a
  // Conv weight whose int8 codes are made saturation-safe.
  void add_param(const std::string& name, const TensorEncoding& te, bool pairs_safe = false) {
    Graph& g = out_.graph;
    Tensor q = quantize_tensor(*constant(name), te);
    if (pairs_safe && q.dtype() == DType::kInt8) {
      const int64_t changed = make_pairs_safe(q, *constant(name), te);
      out_.saturation_safe_convs += changed > 0;
      out_.saturation_safe_codes += changed;
    }
    std::string qname = fresh(name + "_quantized");
    g.initializers[qname] = q;
    auto [sname, zname] = add_scale_zero_point(name, te);
    Node dq;
    dq.name = name + "_DequantizeLinear";
    dq.op_type = "DequantizeLinear";
    dq.domain = domain_for(q.dtype());
    dq.inputs = {qname, sname, zname};
    dq.outputs = {name};
    if (te.per_channel()) dq.attrs["axis"] = Attribute::integer(te.axis);
    new_nodes_.push_back(std::move(dq));
    g.initializers.erase(name);
    auto c = constant_nodes_.find(name);
    if (c != constant_nodes_.end()) dropped_nodes_.insert(c->second);
    out_.encodings.params[name] = te;
  }

  std::pair<std::string, std::string> add_scale_zero_point(const std::string& base,
                                                           const TensorEncoding& te) {
    Graph& g = out_.graph;
    std::vector<float> scales;
    std::vector<int64_t> zps;
    for (const Encoding& e : te.channels) {
      scales.push_back(e.scale);
      zps.push_back(e.zero_point());
    }
    Shape shape = te.per_channel() ? Shape{static_cast<int64_t>(scales.size())} : Shape{};
    std::string sname = fresh(base + "_scale");
    g.initializers[sname] = Tensor::from_vector<float>(shape, scales);
    std::string zname = fresh(base + "_zero_point");
    Tensor z(te.channels.at(0).dtype(), shape);
    for (size_t i = 0; i < zps.size(); ++i) {
      switch (z.dtype()) {
        case DType::kUInt8:
          z.data<uint8_t>()[i] = static_cast<uint8_t>(zps[i]);
          break;
        case DType::kInt8:
          z.data<int8_t>()[i] = static_cast<int8_t>(zps[i]);
          break;
        case DType::kUInt16:
          z.data<uint16_t>()[i] = static_cast<uint16_t>(zps[i]);
          break;
        case DType::kInt16:
          z.data<int16_t>()[i] = static_cast<int16_t>(zps[i]);
          break;
        case DType::kInt32:
          z.data<int32_t>()[i] = static_cast<int32_t>(zps[i]);
          break;
        default:
          fail("unexpected zero point type ", dtype_name(z.dtype()));
      }
    }
    g.initializers[zname] = z;
    return {sname, zname};
  }

  // ---- activations ----
  void wrap_activation(const std::string& v) {
    auto it = acts_.find(v);
    EDGEQ_CHECK(it != acts_.end(), "no encoding for planned activation '", v, "'");
    const TensorEncoding& te = it->second;
    out_.encodings.activations[v] = te;
    if (te.is_float) return;
    EDGEQ_CHECK(!te.per_channel() && te.channels.size() == 1, "activation '", v,
                "' has a per-channel encoding; activations are encoded per tensor");
    Graph& g = out_.graph;
    DType qt = te.channels[0].dtype();
    auto [sname, zname] = add_scale_zero_point(v, te);
    std::string qout = fresh(v + "_QuantizeLinear_Output");
    std::string qin = v, dqout = v;
    auto p = producer_.find(v);
    if (p == producer_.end()) {  // a graph input: consumers switch to the DequantizeLinear output
      dqout = fresh(v + "_DequantizeLinear_Output");
      for (Node& n : g.nodes)
        for (std::string& in : n.inputs)
          if (in == v) in = dqout;
    } else {  // the producer writes a new name; the DequantizeLinear output takes over `v`
      qin = fresh(v + "_QuantizeLinear_Input");
      for (std::string& o : g.nodes[p->second].outputs)
        if (o == v) o = qin;
    }
    Node q;
    q.name = v + "_QuantizeLinear";
    q.op_type = "QuantizeLinear";
    q.domain = domain_for(qt);
    q.inputs = {qin, sname, zname};
    q.outputs = {qout};
    Node dq;
    dq.name = v + "_DequantizeLinear";
    dq.op_type = "DequantizeLinear";
    dq.domain = domain_for(qt);
    dq.inputs = {qout, sname, zname};
    dq.outputs = {dqout};
    new_nodes_.push_back(std::move(q));
    new_nodes_.push_back(std::move(dq));
  }

  const Graph& src_;
  const QuantPlan& plan_;
  const std::map<std::string, TensorEncoding>& acts_;
  const QuantConfig& cfg_;
  const std::map<std::string, TensorEncoding>& fixed_weights_;
  QdqModel out_;
  std::map<std::string, int> producer_;        // value -> index of its producing node
  std::map<std::string, int> constant_nodes_;  // value -> index of its Constant node
  std::set<int> dropped_nodes_;
  std::vector<Node> new_nodes_;
  bool contrib16_ = false;
  std::unordered_set<std::string> used_;  // every name in the graph so far

  // A name not yet used, starting with `base` (Graph::unique_name, without rescanning the graph).
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }
};

}  // namespace

std::optional<int64_t> weight_channel_axis(const Node& n, const Tensor& w) {
  int64_t axis = 0;
  const std::string& op = n.op_type;
  if (op == "Conv")
    axis = 0;
  else if (op == "ConvTranspose")
    axis = n.attr_int("group", 1) == 1 ? 1 : -1;
  else if (op == "Gemm")
    axis = n.attr_int("transB", 0) ? 0 : 1;
  else if (op == "MatMul")
    axis = w.rank() - 1;
  else
    return std::nullopt;
  return w.rank() < 2 ? -1 : axis;
}

TensorEncoding node_weight_encoding(const Node& n, const Tensor& w, const QuantConfig& cfg) {
  const std::optional<int64_t> axis = weight_channel_axis(n, w);
  EDGEQ_CHECK(axis.has_value(), n.describe(), " has no weight input");
  const bool per_channel = cfg.per_channel_weights && *axis >= 0;
  const TensorEncoding e = weight_encoding(w, per_channel, per_channel ? *axis : 0, cfg.weight_bits,
                                           "weight '" + n.inputs.at(1) + "' of " + n.describe());
  if (cfg.reduce_range) return reduce_range_encoding(w, e);
  return cfg.saturation_safe && n.op_type == "Conv" ? saturation_safe_encoding(w, e) : e;
}

std::map<std::string, TensorEncoding> plan_weight_encodings(const Graph& g, const QuantPlan& plan,
                                                            const QuantConfig& cfg) {
  std::map<std::string, TensorEncoding> out;
  for (int ni : plan.quantized_nodes) {
    const Node& n = g.nodes[static_cast<size_t>(ni)];
    if (!n.has_input(1) || out.count(n.inputs[1])) continue;
    auto w = g.initializers.find(n.inputs[1]);
    if (w == g.initializers.end() || w->second.dtype() != DType::kFloat32 ||
        !weight_channel_axis(n, w->second).has_value())
      continue;
    out.emplace(n.inputs[1], node_weight_encoding(n, w->second, cfg));
  }
  return out;
}

QdqModel export_qdq(const Graph& g, const QuantPlan& plan,
                    const std::map<std::string, TensorEncoding>& activations,
                    const QuantConfig& config,
                    const std::map<std::string, TensorEncoding>& fixed_weights) {
  return QdqWriter(g, plan, activations, config, fixed_weights).run();
}

}  // namespace edgeq
