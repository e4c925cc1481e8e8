#include "ir/silu.h"

#include <cmath>

#include "core/fast_math.h"
#include "ir/op_traits.h"

namespace edgeq {

double silu_min() {
  const double x = kSiluArgMin;
  return x / (1.0 + std::exp(-x));
}

bool is_silu_mul(const Graph& g, const Node& mul) {
  if (mul.op_type != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const int p = g.producer_of(mul.inputs[1 - k]);
    if (p < 0) continue;
    const Node& s = g.nodes[p];
    if (s.op_type == "Sigmoid" && s.domain.empty() && s.inputs.size() == 1 &&
        s.inputs[0] == mul.inputs[k])
      return true;
  }
  return false;
}

std::set<std::string> silu_values(const Graph& g) {
  std::set<std::string> out;
  for (int ni : g.topo_order()) {
    const Node& n = g.nodes[ni];
    bool silu = is_silu_mul(g, n);
    if (!silu && moves_values(n)) {
      const std::vector<size_t> data = data_input_indices(n);
      silu = !data.empty();
      for (size_t i : data) silu = silu && n.has_input(i) && out.count(n.inputs[i]);
    }
    if (silu)
      for (const std::string& o : n.outputs) out.insert(o);
  }
  return out;
}

}  // namespace edgeq
