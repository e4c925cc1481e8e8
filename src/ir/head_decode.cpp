#include "ir/head_decode.h"

#include <cmath>
#include <set>

#include "ir/constants.h"
#include "ir/op_traits.h"

namespace edgeq {
namespace {

// Distinct strides of a per-anchor stride constant, or empty when it is not one.
std::vector<int> strides_of(const Tensor& t) {
  if (t.dtype() != DType::kFloat32 || t.numel() < 2) return {};
  std::set<int> found;
  for (float x : t.to_floats()) {
    if (!(x > 3.0f && x < 140.0f)) return {};
    int p = 1 << static_cast<int>(std::lround(std::log2(x)));
    if (std::fabs(x - p) > 0.02 * p || p < 4 || p > 128) return {};
    found.insert(p);
  }
  return {found.begin(), found.end()};
}

bool is_constant_two(const Graph& g, const std::string& v) {
  const Tensor* t = find_constant(g, v);
  if (!t || t->dtype() != DType::kFloat32 || t->numel() == 0) return false;
  for (float x : t->to_floats())
    if (std::fabs(x - 2.0f) > 2e-2f) return false;
  return true;
}

}  // namespace

std::vector<StrideMul> find_stride_muls(const Graph& g) {
  std::vector<StrideMul> out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type != "Mul" || n.inputs.size() != 2 || n.outputs.empty()) continue;
    for (int k = 0; k < 2; ++k) {
      const Tensor* c = find_constant(g, n.inputs[k]);
      if (!c || find_constant(g, n.inputs[1 - k])) continue;
      std::vector<int> s = strides_of(*c);
      if (s.empty()) continue;
      out.push_back({static_cast<int>(i), n.inputs[1 - k], n.outputs[0], s});
      break;
    }
  }
  return out;
}

std::optional<BoxDecode> find_box_decode(const Graph& g) {
  for (const StrideMul& m : find_stride_muls(g)) {
    int c = g.producer_of(m.grid);
    if (c < 0 || g.nodes[c].op_type != "Concat" || g.nodes[c].inputs.size() != 2) continue;
    const Node& cat = g.nodes[c];
    int div = g.producer_of(cat.inputs[0]), sub = g.producer_of(cat.inputs[1]);
    if (div < 0 || sub < 0 || g.nodes[div].op_type != "Div" || g.nodes[sub].op_type != "Sub")
      continue;
    if (g.nodes[div].inputs.size() != 2 || !is_constant_two(g, g.nodes[div].inputs[1])) continue;
    std::vector<std::string> corners = {g.nodes[div].inputs[0]};
    for (const std::string& v : g.nodes[sub].inputs)
      if (!find_constant(g, v)) corners.push_back(v);
    return BoxDecode{cat.name, m.grid, cat.inputs[0], cat.inputs[1], corners, m};
  }
  return std::nullopt;
}

std::map<std::string, PixelMeaning> pixel_meanings(const Graph& g) {
  std::map<std::string, PixelMeaning> out;
  for (const StrideMul& m : find_stride_muls(g)) {
    // Backwards: the grid value and, through a Concat or move-only ops, what it is made of.
    std::vector<std::string> todo = {m.grid};
    std::set<std::string> seen;
    while (!todo.empty()) {
      std::string v = todo.back();
      todo.pop_back();
      if (!seen.insert(v).second || find_constant(g, v)) continue;
      out[v] = {true, m.strides};
      int p = g.producer_of(v);
      if (p < 0) continue;
      const Node& n = g.nodes[p];
      if (n.op_type == "Concat") {
        for (const std::string& in : n.inputs) todo.push_back(in);
      } else if (is_move_only(n.op_type) && n.has_input(0)) {
        todo.push_back(n.inputs[0]);
      }
    }
    // Forwards: pixels, through Concat and move-only ops (e.g. into the graph output).
    todo = {m.pixels};
    seen.clear();
    while (!todo.empty()) {
      std::string v = todo.back();
      todo.pop_back();
      if (!seen.insert(v).second) continue;
      if (!out.count(v) || !out[v].grid) out[v] = {false, {}};
      for (int c : g.consumers_of(v)) {
        const Node& n = g.nodes[c];
        if (n.op_type == "Concat" || is_move_only(n.op_type))
          for (const std::string& o : n.outputs) todo.push_back(o);
      }
    }
  }
  return out;
}

}  // namespace edgeq
