#include "runtime/constant_folding.h"

namespace edgeq {

ShapePass infer_and_fold(const Graph& g) {
  ShapePass p;
  for (const auto& kv : g.initializers) {
    p.constants[kv.first] = kv.second;
    p.descs[kv.first] = {kv.second.dtype(), kv.second.shape(), &p.constants[kv.first]};
  }
  for (const auto& in : g.inputs) {
    for (int64_t d : in.shape)
      EDGEQ_CHECK(d > 0, "graph input '", in.name, "' has a dynamic shape ", shape_str(in.shape),
                  "; edgeq needs static shapes (re-export with a fixed imgsz and batch)");
    p.descs[in.name] = {in.dtype, in.shape, nullptr};
    p.activation_order.push_back(in.name);
  }
  p.folded.assign(g.nodes.size(), false);
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& node = g.nodes[ni];
    KernelInit init{node, {}, g.opset(node.domain)};
    bool all_const = true;
    for (const auto& name : node.inputs) {
      if (name.empty()) {
        init.inputs.push_back({DType::kUndefined, {}, nullptr});
        continue;
      }
      auto it = p.descs.find(name);
      EDGEQ_CHECK(it != p.descs.end(), node.describe(), " reads undefined value '", name, "'");
      init.inputs.push_back(it->second);
      all_const &= it->second.constant != nullptr;
    }
    bool shape_only = node.op_type == "Shape" && node.domain.empty();
    std::unique_ptr<Kernel> k = create_kernel(init);
    EDGEQ_CHECK(k->outputs.size() >= node.outputs.size() || node.outputs.empty(), node.describe(),
                ": kernel produced fewer outputs than the node declares");
    if (all_const || shape_only) {
      std::vector<Tensor> ins;
      std::vector<const Tensor*> in_ptrs;
      ins.reserve(init.inputs.size());
      for (const auto& d : init.inputs)
        ins.push_back(d.constant ? *d.constant : Tensor::view(d.dtype, d.shape, nullptr));
      for (size_t i = 0; i < ins.size(); ++i)
        in_ptrs.push_back(init.inputs[i].dtype == DType::kUndefined ? nullptr : &ins[i]);
      std::vector<Tensor> outs;
      std::vector<Tensor*> out_ptrs;
      for (const auto& d : k->outputs) outs.emplace_back(d.dtype, d.shape);
      for (auto& t : outs) out_ptrs.push_back(&t);
      k->run(in_ptrs, out_ptrs);
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o].empty()) continue;
        p.constants[node.outputs[o]] = outs[o];
        p.descs[node.outputs[o]] = {outs[o].dtype(), outs[o].shape(),
                                    &p.constants[node.outputs[o]]};
      }
      p.folded[ni] = true;
      continue;
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o].empty()) continue;
      p.descs[node.outputs[o]] = {k->outputs[o].dtype, k->outputs[o].shape, nullptr};
      p.activation_order.push_back(node.outputs[o]);
    }
  }
  for (const auto& o : g.outputs)
    EDGEQ_CHECK(p.descs.count(o.name), "graph output '", o.name, "' is not produced by any node");

  return p;
}

}  // namespace edgeq
