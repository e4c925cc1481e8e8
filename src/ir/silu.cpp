#include "ir/silu.h"

#include <cmath>

#include "core/fast_math.h"
#include "ir/op_traits.h"

namespace edgeq {

double silu_min() {
  const double x = kSiluArgMin;
  return x / (1.0 + std::exp(-x));
}

int silu_input_index(const Graph& g, const Node& mul) {
  if (mul.op_type != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2) return -1;
  for (int k = 0; k < 2; ++k) {
    const int p = g.producer_of(mul.inputs[1 - k]);
    if (p < 0) continue;
    const Node& s = g.nodes[p];
    if (s.op_type == "Sigmoid" && s.domain.empty() && s.inputs.size() == 1 &&
        s.inputs[0] == mul.inputs[k])
      return k;
  }
  return -1;
}

bool is_silu_mul(const Graph& g, const Node& mul) {
  return silu_input_index(g, mul) >= 0;
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

std::map<std::string, std::string> silu_gates(const Graph& g) {
  std::set<std::string> graph_outputs;
  for (const ValueInfo& v : g.outputs) graph_outputs.insert(v.name);
  std::map<std::string, std::string> out;
  for (size_t m = 0; m < g.nodes.size(); ++m) {
    const Node& mul = g.nodes[m];
    const int k = silu_input_index(g, mul);
    if (k < 0) continue;
    const std::string& x = mul.inputs[k];
    const int s = g.producer_of(mul.inputs[1 - k]);
    const std::vector<int> readers = g.consumers_of(x);
    bool only_silu = !graph_outputs.count(x) && readers.size() == 2;
    for (int r : readers) only_silu = only_silu && (r == s || r == int(m));
    if (only_silu) out[x] = mul.inputs[1 - k];
  }
  return out;
}

}  // namespace edgeq
