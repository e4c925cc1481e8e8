#include "quant/silu_gate.h"

#include <cmath>

#include "ir/silu.h"

namespace edgeq {

std::optional<double> gate_closed_below(const TensorEncoding& gate) {
  if (gate.is_float || gate.channels.size() != 1) return std::nullopt;
  const double s = 0.25 * gate.channels[0].scale;
  if (!(s > 0 && s < 0.5)) return std::nullopt;
  return std::log(s / (1.0 - s));
}

std::map<std::string, double> silu_gate_floors(
    const Graph& g, const std::map<std::string, TensorEncoding>& encodings) {
  std::map<std::string, double> floors;
  for (const auto& [x, gate] : silu_gates(g)) {
    auto it = encodings.find(gate);
    if (it == encodings.end()) continue;
    if (std::optional<double> b = gate_closed_below(it->second)) floors[x] = *b;
  }
  return floors;
}

}  // namespace edgeq
