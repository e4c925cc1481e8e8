#include "runtime/fusion.h"

#include <unordered_map>
#include <vector>

namespace edgeq {

int fuse_conv_silu(Graph& g, const std::set<std::string>& protect) {
  std::unordered_map<std::string, std::vector<int>> readers;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) readers[in].push_back(static_cast<int>(i));

  std::vector<bool> drop(g.nodes.size(), false);
  int fused = 0;
  for (size_t ci = 0; ci < g.nodes.size(); ++ci) {
    Node& conv = g.nodes[ci];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.has_attr(kFusedActivationAttr)) continue;
    const std::string& x = conv.outputs[0];
    if (protect.count(x)) continue;
    const auto& xr = readers[x];
    if (xr.size() != 2) continue;
    int sig = -1, mul = -1;
    for (int r : xr) {
      if (g.nodes[r].op_type == "Sigmoid") sig = r;
      if (g.nodes[r].op_type == "Mul") mul = r;
    }
    if (sig < 0 || mul < 0) continue;
    const std::string& s = g.nodes[sig].outputs[0];
    if (protect.count(s) || readers[s].size() != 1 || readers[s][0] != mul) continue;
    const Node& m = g.nodes[mul];
    bool operands_ok = m.inputs.size() == 2 && ((m.inputs[0] == x && m.inputs[1] == s) ||
                                                (m.inputs[0] == s && m.inputs[1] == x));
    if (!operands_ok) continue;
    Attribute act;
    act.kind = Attribute::Kind::kString;
    act.s = "silu";
    conv.attrs[kFusedActivationAttr] = act;
    conv.outputs[0] = m.outputs[0];
    drop[sig] = drop[mul] = true;
    ++fused;
  }
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  return fused;
}

}  // namespace edgeq
