// Constant values of a graph: initializers and the outputs of Constant nodes.
#pragma once
#include <string>

#include "ir/graph.h"

namespace edgeq {

// The constant tensor named `v` (an initializer or a Constant node's `value`), or nullptr.
inline const Tensor* find_constant(const Graph& g, const std::string& v) {
  auto it = g.initializers.find(v);
  if (it != g.initializers.end()) return &it->second;
  int p = g.producer_of(v);
  if (p >= 0 && g.nodes[p].op_type == "Constant" && g.nodes[p].has_attr("value"))
    return &g.nodes[p].attrs.at("value").t;
  return nullptr;
}

// The same, writable.
inline Tensor* find_constant(Graph& g, const std::string& v) {
  return const_cast<Tensor*>(find_constant(static_cast<const Graph&>(g), v));
}

}  // namespace edgeq
