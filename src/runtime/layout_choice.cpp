#include "runtime/layout_choice.h"

#include <map>

#include "ir/op_traits.h"
#include "runtime/kernels/pointwise_conv.h"

namespace edgeq {

bool is_activation_4d(const ValueDesc& d) {
  return (d.dtype == DType::kFloat32 || d.dtype == DType::kUInt8) && d.shape.size() == 4;
}

Layout choose_layout(const Node& node, const std::vector<ValueDesc>& inputs,
                     const Shape& output_shape, const std::function<bool(size_t)>& input_is_nhwc) {
  const std::string& op = node.op_type;
  const OpTraits& traits = op_traits(node);
  if (!traits.nhwc || inputs.empty() || !is_activation_4d(inputs[0]) || inputs[0].constant)
    return Layout::kPlain;
  // Conv and QConv: always NHWC, even where the input is plain (the DFL's Conv after its Softmax,
  // a value a hook reads in its ONNX layout, a DequantizeLinear's output): oneDNN's plain-layout
  // float convolution is a GEMM whose sums follow the thread count on AVX2, so results would
  // depend on --threads and on which values are watched; its plain int8 one is a slow reference
  // kernel. (The planner gives the pointwise Convs whose outputs are read plain to our own kernel,
  // which writes plain from either layout: plain_pointwise_outputs.)
  if (traits.data == DataInputs::kWeighted) return Layout::kNHWC;
  if (op == "MaxPool" || op == "AveragePool" || op == "Resize")
    return input_is_nhwc(0) ? Layout::kNHWC : Layout::kPlain;
  const bool elementwise = traits.elementwise;
  bool ok = true, any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueDesc& d = inputs[i];
    if (d.dtype == DType::kUndefined || (op == "Split" && i > 0)) continue;  // omitted, split sizes
    if (elementwise) {
      if (shape_numel(d.shape) == 1) continue;
      ok &= d.shape == output_shape && !d.constant;
    } else {
      ok &= is_activation_4d(d) && !d.constant;
    }
    any |= input_is_nhwc(i);
  }
  return ok && any ? Layout::kNHWC : Layout::kPlain;
}

namespace {

class PlainReaders {
 public:
  PlainReaders(const std::vector<Node>& nodes, const ValueDescs& descs,
               const std::set<std::string>& graph_outputs)
      : descs_(descs), graph_outputs_(graph_outputs) {
    for (const Node& n : nodes) {
      for (const std::string& v : n.inputs)
        if (!v.empty()) readers_[v].push_back(&n);
      for (const std::string& v : n.outputs)
        if (!v.empty()) producer_[v] = &n;
    }
  }

  // Forgets what read_plain found: `plain` changed.
  void forget() const { known_.clear(); }

  // Whether every reader of v reads it plain, given the values in `plain` are stored plain.
  // Remembered per value until forget(): a value many ways lead to is looked at once.
  bool read_plain(const std::string& v, const std::set<std::string>& plain) const {
    auto k = known_.find(v);
    if (k != known_.end()) return k->second;
    const bool r = look(v, plain);
    known_[v] = r;
    return r;
  }

 private:
  bool look(const std::string& v, const std::set<std::string>& plain) const {
    if (graph_outputs_.count(v)) return false;  // see plain_pointwise_outputs
    auto it = readers_.find(v);
    if (it == readers_.end()) return true;
    for (const Node* r : it->second) {
      // A SiLU's Sigmoid: the Conv computes the same whether the SiLU is fused into it (oneDNN's
      // kernel) or not, as when a hook watches its output.
      if (r->op_type == "Sigmoid") return false;
      const OpTraits& traits = op_traits(*r);
      if (!traits.nhwc && !is_qdq(*r)) continue;  // runs plain
      if (traits.data == DataInputs::kWeighted) {
        // A pointwise Conv of ours reads plain too.
        if (!r->outputs.empty() && plain.count(r->outputs[0])) continue;
        return false;
      }
      for (const std::string& u : r->inputs) {
        if (u.empty() || u == v) continue;
        auto d = descs_.find(u);
        if (d == descs_.end()) return false;
        if (!d->second.constant && is_activation_4d(d->second) && !stored_plain(u, plain))
          return false;
      }
      for (const std::string& o : r->outputs)
        if (!o.empty() && !read_plain(o, plain)) return false;
    }
    return true;
  }

  // QuantizeLinear / DequantizeLinear pass the value on: a QDQ model decides as its folded plan
  // does (the fake-quant steps fused into the Conv).
  static bool is_qdq(const Node& n) {
    return n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear";
  }

  // u is in `plain`, or comes from one through QuantizeLinear / DequantizeLinear.
  bool stored_plain(const std::string& u, const std::set<std::string>& plain) const {
    if (plain.count(u)) return true;
    auto p = producer_.find(u);
    return p != producer_.end() && is_qdq(*p->second) && stored_plain(p->second->inputs[0], plain);
  }

  const ValueDescs& descs_;
  const std::set<std::string>& graph_outputs_;
  std::map<std::string, std::vector<const Node*>> readers_;
  std::map<std::string, const Node*> producer_;
  mutable std::map<std::string, bool> known_;
};

}  // namespace

std::set<std::string> plain_pointwise_outputs(const std::vector<Node>& nodes,
                                              const ValueDescs& descs,
                                              const std::set<std::string>& graph_outputs) {
  std::set<std::string> plain;
  for (const Node& n : nodes) {
    std::vector<ValueDesc> in;
    for (const std::string& v : n.inputs) {
      auto d = descs.find(v);
      in.push_back(d == descs.end() ? ValueDesc{DType::kUndefined, {}, nullptr} : d->second);
    }
    if (n.outputs.size() == 1 && is_pointwise_conv(n, in)) plain.insert(n.outputs[0]);
  }
  const PlainReaders readers(nodes, descs, graph_outputs);
  for (bool changed = true; changed;) {  // drop those some reader wants NHWC, until none is left
    changed = false;
    readers.forget();
    for (auto it = plain.begin(); it != plain.end();) {
      if (readers.read_plain(*it, plain)) {
        ++it;
      } else {
        it = plain.erase(it);
        changed = true;
      }
    }
  }
  return plain;
}

}  // namespace edgeq
