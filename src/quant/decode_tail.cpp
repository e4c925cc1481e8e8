#include "quant/decode_tail.h"

#include "ir/constants.h"
#include "ir/head_decode.h"
#include "ir/op_traits.h"
#include "quant/quantize_model.h"

namespace edgeq {

namespace {

// The activation inputs of a node that maps them linearly, element by element or by moving them
// (Concat, move-only ops, Add / Sub, Mul / Div by a constant); empty for any other node.
std::vector<std::string> linear_inputs(const Graph& g, const Node& n) {
  std::vector<std::string> acts;
  for (const std::string& in : n.inputs)
    if (!in.empty() && !find_constant(g, in)) acts.push_back(in);
  if (n.op_type == "Concat" || n.op_type == "Add" || n.op_type == "Sub") return acts;
  if (is_move_only(n.op_type) && n.has_input(0) && !find_constant(g, n.inputs[0]))
    return {n.inputs[0]};
  if ((n.op_type == "Mul" || n.op_type == "Div") && acts.size() == 1 && n.has_input(0) &&
      (n.op_type == "Mul" || acts[0] == n.inputs[0]))
    return acts;
  return {};
}

}  // namespace

std::set<std::string> decode_tail_values(const Graph& g) {
  std::set<std::string> out;
  std::vector<std::string> todo;  // grid-unit values: where the linear feed below starts
  for (const auto& [v, meaning] : pixel_meanings(g)) {
    out.insert(v);
    if (meaning.grid) todo.push_back(v);
  }
  if (auto box = find_box_decode(g)) {
    for (const std::string& v : {box->concat, box->centre, box->size}) todo.push_back(v);
    todo.insert(todo.end(), box->corners.begin(), box->corners.end());
    out.insert(todo.begin(), todo.end());
  }
  // The tail's linear feed: backwards from the grid-unit values through linear ops to the first
  // values another op writes (the DFL conv's distances, the keypoint convs' raw offsets). Their
  // steps are pixel steps divided by the stride (or twice it): at 8 bit the keypoint offsets of
  // yolo11n-pose's 20x20 level move by 3.3 px a step. (The pixel values are not walked back:
  // the Concats that join them with the scores read values of another kind.)
  while (!todo.empty()) {
    const std::string v = todo.back();
    todo.pop_back();
    const int p = g.producer_of(v);
    if (p < 0) continue;
    for (const std::string& in : linear_inputs(g, g.nodes[p]))
      if (out.insert(in).second) todo.push_back(in);
  }
  return out;
}

std::set<std::string> output_assembly_nodes(const Graph& g) {
  const std::set<std::string> tail = decode_tail_values(g);
  auto writes_tail = [&](const Node& n) {
    for (const std::string& o : n.outputs)
      if (tail.count(o)) return true;
    return false;
  };
  std::set<std::string> out;
  std::vector<int> todo;
  for (int ni = 0; ni < static_cast<int>(g.nodes.size()); ++ni) {
    const Node& n = g.nodes[ni];
    if (n.op_type != "Concat" || !writes_tail(n)) continue;
    bool joins_other = false;
    for (const std::string& in : n.inputs)
      if (!in.empty() && !g.is_initializer(in) && !tail.count(in)) joins_other = true;
    if (joins_other) todo.push_back(ni);
  }
  while (!todo.empty()) {
    const Node& n = g.nodes[todo.back()];
    todo.pop_back();
    if (!out.insert(n.name).second) continue;
    for (const std::string& o : n.outputs)
      for (int c : g.consumers_of(o))
        if (writes_tail(g.nodes[c])) todo.push_back(c);
  }
  return out;
}

void exclude_output_assembly(const Graph& g, QuantConfig& config) {
  if (config.placement == Placement::kQnn) return;
  for (const std::string& n : output_assembly_nodes(g)) config.exclude_nodes.insert(n);
}

std::set<std::string> mark_decode_tail(const Graph& g, const QuantPlan& plan, bool a16,
                                       QuantConfig& config) {
  config.decode_tail = decode_tail_values(g);
  std::set<std::string> quantized;
  for (const std::string& v : config.decode_tail)
    if (plan.is_quantized(v)) quantized.insert(v);
  if (a16) config.a16.insert(quantized.begin(), quantized.end());
  return quantized;
}

TailPlan plan_with_decode_tail(const Graph& g, const Stats& stats, bool float_assembly,
                               bool a16_tail, QuantConfig& config) {
  if (float_assembly) exclude_output_assembly(g, config);
  TailPlan t;
  t.plan = plan_for_stats(g, stats, config);
  t.tail = mark_decode_tail(g, t.plan, a16_tail, config);
  return t;
}

}  // namespace edgeq
