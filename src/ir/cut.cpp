#include "ir/cut.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "ir/raw_head.h"
#include "ir/shape_inference.h"

namespace edgeq {
namespace {

constexpr int kBackboneLast = 10;  // arm A: layers 0..10
constexpr int kNeckLast = 22;      // arm B: layers 0..22
const int kPyramidLayers[] = {16, 19, 22};

// The highest layer index named in the graph; throws when there are no "/model.N/" names.
int last_layer(const Graph& g) {
  int last = -1;
  for (const auto& n : g.nodes) last = std::max(last, layer_of_node(n.name));
  EDGEQ_CHECK(last >= 0, "model '", g.name,
              "' has no Ultralytics-style node names (/model.N/...): cannot find its layers");
  return last;
}

int arm_last_layer(Arm arm, int model_last) {
  switch (arm) {
    case Arm::kA:
      return kBackboneLast;
    case Arm::kB:
      return kNeckLast;
    case Arm::kC:
    case Arm::kHead:
      return model_last;
  }
  return model_last;
}

void add_tap(Graph& g, int layer, const std::string& value) {
  const std::string scope = "/tap" + std::to_string(layer);
  Node avg;
  avg.name = scope + "/GlobalAveragePool";
  avg.op_type = "GlobalAveragePool";
  avg.inputs = {value};
  avg.outputs = {tap_avg_name(layer)};
  Node max;
  max.name = scope + "/GlobalMaxPool";
  max.op_type = "GlobalMaxPool";
  max.inputs = {value};
  max.outputs = {tap_max_name(layer)};
  for (const auto& name : avg.outputs)
    EDGEQ_CHECK(g.producer_of(name) < 0 && !g.is_initializer(name), "cannot add tap of layer ",
                layer, ": the model already has a value named '", name, "'");
  g.nodes.push_back(std::move(avg));
  g.nodes.push_back(std::move(max));
  g.outputs.push_back({tap_avg_name(layer), DType::kFloat32, {}});
  g.outputs.push_back({tap_max_name(layer), DType::kFloat32, {}});
}

}  // namespace

std::vector<int> default_tap_layers() {
  return {4, 6, 8, 10};
}

int layer_of_node(const std::string& name) {
  static const std::string prefix = "/model.";
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  size_t i = prefix.size();
  int layer = 0;
  size_t digits = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && digits < 6) {
    layer = layer * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || i >= name.size() || name[i] != '/') return -1;
  return layer;
}

std::string layer_output(const Graph& g, int layer) {
  const int last = last_layer(g);
  std::set<std::string> produced;
  for (const auto& n : g.nodes)
    if (layer_of_node(n.name) == layer)
      for (const auto& o : n.outputs)
        if (!o.empty()) produced.insert(o);
  EDGEQ_CHECK(!produced.empty(), "layer ", layer, " not found: model '", g.name,
              "' has no nodes named /model.", layer, "/... (layers 0-", last, ")");
  std::set<std::string> leaving;
  for (const auto& n : g.nodes) {
    if (layer_of_node(n.name) == layer) continue;
    for (const auto& in : n.inputs)
      if (produced.count(in)) leaving.insert(in);
  }
  for (const auto& o : g.outputs)
    if (produced.count(o.name)) leaving.insert(o.name);
  EDGEQ_CHECK(!leaving.empty(), "layer ", layer, ": no value produced in /model.", layer,
              "/ is read outside it");
  if (leaving.size() > 1) {
    std::string names;
    for (const auto& v : leaving) names += (names.empty() ? "" : ", ") + v;
    fail("layer ", layer, " has ", leaving.size(), " values read outside it (", names,
         "): cannot tell which one is its output");
  }
  return *leaving.begin();
}

std::string tap_avg_name(int layer) {
  return "tap_avg" + std::to_string(layer);
}
std::string tap_max_name(int layer) {
  return "tap_max" + std::to_string(layer);
}

Graph cut_model(const Graph& model, const CutSpec& spec) {
  if (spec.arm == Arm::kHead) {  // found by structure: no layer names needed
    EDGEQ_CHECK(spec.taps.empty(), "the raw head (arm head) takes no taps");
    Graph g = cut_raw_head(model);
    g.metadata.push_back({"edgeq_arm", std::string(name(spec.arm))});
    return g;
  }
  const int model_last = last_layer(model);
  const int arm_last = arm_last_layer(spec.arm, model_last);
  EDGEQ_CHECK(arm_last <= model_last, "arm ", name(spec.arm), " needs layers 0-", arm_last,
              " but model '", model.name, "' has layers 0-", model_last);

  std::vector<int> taps = spec.taps;
  if (spec.arm == Arm::kA && taps.empty()) taps = default_tap_layers();
  std::set<int> seen;
  for (int t : taps) {
    EDGEQ_CHECK(t >= 0 && t <= arm_last, "tap layer ", t, " is outside arm ", name(spec.arm),
                " (layers 0-", arm_last, ")");
    EDGEQ_CHECK(seen.insert(t).second, "tap layer ", t, " is given twice");
  }

  Graph g = model;
  // Resolve every layer output on the unmodified graph (taps must not change the answer).
  std::vector<std::pair<int, std::string>> tap_values;
  for (int t : taps) tap_values.emplace_back(t, layer_output(model, t));
  std::vector<std::string> pyramid;
  if (spec.arm == Arm::kB)
    for (int l : kPyramidLayers) pyramid.push_back(layer_output(model, l));

  if (spec.arm == Arm::kA) {
    g.outputs.clear();
  } else if (spec.arm == Arm::kB) {
    g.outputs.clear();
    for (const auto& v : pyramid) g.outputs.push_back({v, DType::kFloat32, {}});
  }
  for (const auto& [layer, value] : tap_values) add_tap(g, layer, value);
  EDGEQ_CHECK(!g.outputs.empty(), "arm ", name(spec.arm), " would have no outputs");

  g.sort_topologically();
  g.remove_dead_nodes();
  // Shapes of intermediate values may be stale for values that became outputs; keep value_info
  // only for values that are not outputs.
  std::set<std::string> outs;
  for (const auto& o : g.outputs) outs.insert(o.name);
  std::vector<ValueInfo> vi;
  for (auto& v : g.value_info)
    if (!outs.count(v.name)) vi.push_back(v);
  g.value_info = std::move(vi);
  infer_output_shapes(g);
  std::string tap_list;
  for (int t : taps) tap_list += (tap_list.empty() ? "" : ",") + std::to_string(t);
  g.metadata.push_back({"edgeq_arm", std::string(name(spec.arm))});
  if (!tap_list.empty()) g.metadata.push_back({"edgeq_taps", tap_list});
  return g;
}

}  // namespace edgeq
