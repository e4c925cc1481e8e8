#include "runtime/graph_rewrite.h"

namespace edgeq {

Readers readers_of(const Graph& g) {
  Readers readers;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) readers[in].push_back(static_cast<int>(i));
  return readers;
}

void drop_nodes(Graph& g, const std::vector<bool>& drop) {
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

void rename_input(Graph& g, const std::string& from, const std::string& to) {
  for (Node& n : g.nodes)
    for (std::string& in : n.inputs)
      if (in == from) in = to;
}

}  // namespace edgeq
