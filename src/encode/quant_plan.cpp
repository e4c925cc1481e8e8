#include "encode/quant_plan.h"

#include "core/error.h"
#include "ir/op_traits.h"

namespace edgeq {
namespace {

struct UnionFind {
  std::map<std::string, std::string> parent;
  std::string find(const std::string& v) {
    auto it = parent.find(v);
    if (it == parent.end()) return parent[v] = v;
    if (it->second == v) return v;
    return it->second = find(it->second);
  }
  void unite(const std::string& a, const std::string& b) {
    std::string ra = find(a), rb = find(b);
    if (ra != rb) parent[rb] = ra;
  }
};

}  // namespace

bool is_quantizable_op(const std::string& op_type, Placement placement) {
  const OpTraits& t = op_traits("", op_type);
  if (t.data == DataInputs::kNone) return false;  // produces no float data worth an encoding
  if (placement == Placement::kCpu) return t.compute;
  return placement == Placement::kQnn || t.ort_quantizes;
}

std::vector<size_t> data_inputs(const Node& node) {
  return data_input_indices(node);
}

bool shares_encoding(const std::string& op_type, Placement placement) {
  if (op_traits("", op_type).ort_shares_encoding) return true;
  return placement == Placement::kQnn && op_type == "Concat";
}

QuantPlan plan_quantization(const Graph& g, const QuantConfig& config,
                            const std::function<bool(const std::string&)>& is_activation) {
  std::set<std::string> node_names;
  for (const Node& n : g.nodes) node_names.insert(n.name);
  for (const std::string& x : config.exclude_nodes)
    EDGEQ_CHECK(node_names.count(x), "excluded node '", x, "' is not in the model");

  QuantPlan plan;
  std::set<std::string> chosen;
  auto choose = [&](const std::string& v) {
    if (!v.empty() && !g.is_initializer(v) && is_activation(v) && chosen.insert(v).second)
      plan.activations.push_back(v);
  };
  // Graph inputs first, then values in node order (the graph is expected topologically sorted).
  std::vector<int> order = g.topo_order();
  std::set<std::string> wanted;
  for (int ni : order) {
    const Node& n = g.nodes[ni];
    if (config.exclude_nodes.count(n.name) || !is_quantizable_op(n.op_type, config.placement))
      continue;
    plan.quantized_nodes.insert(ni);
    for (size_t i : data_inputs(n))
      if (n.has_input(i)) wanted.insert(n.inputs[i]);
    if (config.placement == Placement::kCpu) continue;  // outputs stay in higher precision
    for (const std::string& o : n.outputs) wanted.insert(o);
  }
  for (const ValueInfo& in : g.inputs)
    if (wanted.count(in.name)) choose(in.name);
  for (int ni : order)
    for (const std::string& o : g.nodes[ni].outputs)
      if (wanted.count(o)) choose(o);

  UnionFind uf;
  for (const std::string& v : plan.activations) uf.find(v);
  for (int ni : plan.quantized_nodes) {
    const Node& n = g.nodes[ni];
    if (!shares_encoding(n.op_type, config.placement)) continue;
    std::vector<std::string> members;
    for (size_t i : data_inputs(n))
      if (n.has_input(i) && chosen.count(n.inputs[i])) members.push_back(n.inputs[i]);
    for (const std::string& o : n.outputs)
      if (chosen.count(o)) members.push_back(o);
    for (size_t k = 1; k < members.size(); ++k) uf.unite(members[0], members[k]);
  }
  // Name each group after its first member in graph order.
  std::map<std::string, std::string> root_to_first;
  for (const std::string& v : plan.activations) {
    std::string r = uf.find(v);
    auto it = root_to_first.emplace(r, v).first;
    plan.group_of[v] = it->second;
    plan.groups[it->second].push_back(v);
  }
  return plan;
}

}  // namespace edgeq
