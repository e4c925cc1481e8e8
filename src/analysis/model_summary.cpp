#include "analysis/model_summary.h"

#include <algorithm>
#include <regex>
#include <set>

#include "analysis/qdq_view.h"
#include "core/error.h"
#include "ir/node_work.h"
#include "ir/op_traits.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

// Input positions that hold trainable parameters, per op.
bool is_parameter_input(const Node& n, size_t i) {
  const std::string& op = n.op_type;
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm") return i >= 1;
  if (op == "MatMul") return true;  // whichever side is constant
  if (op == "BatchNormalization" || op == "LayerNormalization" || op == "InstanceNormalization")
    return i == 1 || i == 2;  // scale and shift (running statistics are buffers)
  if (op == "PRelu") return i == 1;
  return false;
}

int64_t node_elementwise_ops(const Node& n, const ShapeOf& shape_of) {
  const std::string& op = n.op_type;
  if (op == "Conv" || op == "ConvTranspose" || op == "MatMul" || op == "Gemm") return 0;
  if (op_traits(n).no_math) return 0;
  if (op == "Resize" && n.attr_string("mode", "nearest") == "nearest") return 0;
  int64_t ops = 0;
  for (const auto& o : n.outputs)
    if (!o.empty()) ops += shape_numel(shape_of(o));
  return ops;
}

// Module index of "/model.N/..." node names, or -1.
int module_index(const std::string& node_name) {
  static const std::regex re("^/model\\.(\\d+)/");
  std::smatch m;
  return std::regex_search(node_name, m, re) ? std::stoi(m[1].str()) : -1;
}

bool any_name_has(const std::vector<const Node*>& nodes, const std::string& part) {
  for (const Node* n : nodes)
    if (n->name.find(part) != std::string::npos) return true;
  return false;
}

const Node* find_named(const std::vector<const Node*>& nodes, const std::string& suffix) {
  for (const Node* n : nodes)
    if (n->name.size() >= suffix.size() &&
        n->name.compare(n->name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return n;
  return nullptr;
}

// The Ultralytics module kind, from the names and ops of the module's nodes.
std::string module_kind(const std::string& prefix, const std::vector<const Node*>& nodes,
                        const ShapeOf& shape_of) {
  std::set<std::string> ops;
  int convs = 0;
  for (const Node* n : nodes) {
    ops.insert(n->op_type);
    convs += n->op_type == "Conv";
  }
  // `top`: directly under the module ("/model.N/cv1/..."); `any`: at any depth.
  auto top = [&](const std::string& part) { return any_name_has(nodes, prefix + part); };
  auto any = [&](const std::string& part) { return any_name_has(nodes, part); };
  if (top("/dfl/") || (top("/cv2.0/") && top("/cv3.0/"))) {
    if (top("/proto/")) return "Segment";
    if (const Node* kpt = find_named(nodes, "/cv4.0/cv4.0.2/Conv"))
      return shape_of(kpt->inputs.at(1)).at(0) == 1 ? "OBB" : "Pose";
    return "Detect";
  }
  if (any("/attn/")) return top("/cv1/") ? "C2PSA" : "PSA";
  if (ops.count("MaxPool")) return top("/m_1/") || top("/m_2/") ? "SPPF" : "SPP";
  if (top("/m.0/") && ops.count("Split")) {
    if (top("/m.0/m/") || top("/m.0/cv3/")) return "C3k2";
    // Bottleneck width: C3k2 blocks halve their channels (e=0.5), C2f blocks keep them.
    if (const Node* cv1 = find_named(nodes, "/m.0/cv1/conv/Conv")) {
      Shape w = shape_of(cv1->inputs.at(1));
      if (w.size() == 4 && w[0] == w[1]) return "C2f";
    }
    return "C3k2";
  }
  if (ops == std::set<std::string>{"Resize"} || ops == std::set<std::string>{"Upsample"})
    return "Upsample";
  if (ops == std::set<std::string>{"Concat"}) return "Concat";
  if (convs == 1 && nodes.size() <= 3) {
    const Node* c = nullptr;
    for (const Node* n : nodes)
      if (n->op_type == "Conv") c = n;
    return c->attr_int("group", 1) > 1 ? "DWConv" : "Conv";
  }
  std::string joined;
  for (const auto& op : ops) joined += (joined.empty() ? "" : "+") + op;
  return joined;
}

}  // namespace

ModelSummary summarize_model(const Graph& g, const ShapeOf& shape_of) {
  ModelSummary s;
  s.nodes = static_cast<int>(g.nodes.size());
  for (const auto& n : g.nodes) {
    s.op_histogram[n.op_type]++;
    s.qdq_nodes += is_qdq_op(n);
  }
  auto with_shapes = [&](std::vector<ValueInfo> vs) {
    for (auto& v : vs) v.shape = shape_of(v.name);
    return vs;
  };
  s.inputs = with_shapes(g.inputs);
  s.outputs = with_shapes(g.outputs);
  const IoBytes io = io_bytes(g, shape_of);
  s.input_bytes = io.in;
  s.output_bytes = io.out;

  // Group nodes by module, in execution order.
  std::vector<int> order = g.topo_order();
  std::map<int, std::vector<const Node*>> modules;
  std::map<std::string, int> producer_module, producer_pos;
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const Node& n = g.nodes[order[pos]];
    int m = module_index(n.name);
    modules[m].push_back(&n);
    for (const auto& o : n.outputs) {
      producer_module[o] = m;
      producer_pos[o] = static_cast<int>(pos);
    }
  }
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  // Values a module hands to another module (or to the caller).
  std::map<int, std::pair<int, std::string>> handed;  // module -> (position, value)
  auto hand = [&](const std::string& v) {
    auto it = producer_module.find(v);
    if (it == producer_module.end()) return;
    auto& best = handed[it->second];
    if (best.second.empty() || producer_pos[v] > best.first) best = {producer_pos[v], v};
  };
  for (const auto& n : g.nodes) {
    int m = module_index(n.name);
    for (const auto& in : n.inputs)
      if (producer_module.count(in) && producer_module[in] != m) hand(in);
  }
  for (const auto& o : graph_outputs) hand(o);

  std::set<std::string> counted;  // parameters are counted once
  for (auto& [index, nodes] : modules) {
    LayerSummary l;
    l.index = index;
    l.nodes = static_cast<int>(nodes.size());
    std::string prefix = index >= 0 ? "/model." + std::to_string(index) : "";
    l.kind = index >= 0 ? module_kind(prefix, nodes, shape_of) : "(outside modules)";
    for (const Node* n : nodes) {
      for (size_t i = 0; i < n->inputs.size(); ++i) {
        const std::string& in = n->inputs[i];
        if (in.empty() || !g.is_initializer(in) || !is_parameter_input(*n, i)) continue;
        if (counted.insert(in).second) l.params += g.initializers.at(in).numel();
      }
      l.flops += node_flops(*n, shape_of);
      l.elementwise_ops += node_elementwise_ops(*n, shape_of);
    }
    auto h = handed.find(index);
    l.output = h != handed.end() ? h->second.second : nodes.back()->outputs.at(0);
    l.output_shape = shape_of(l.output);
    l.output_bytes = shape_numel(l.output_shape) * static_cast<int64_t>(sizeof(float));
    s.params += l.params;
    s.flops += l.flops;
    s.elementwise_ops += l.elementwise_ops;
    s.layers.push_back(l);
  }
  // Nodes outside any module go last.
  std::stable_sort(s.layers.begin(), s.layers.end(),
                   [](const LayerSummary& a, const LayerSummary& b) {
                     return (a.index < 0 ? 1 << 30 : a.index) < (b.index < 0 ? 1 << 30 : b.index);
                   });

  // Backbone 0-10, neck 11 to the head's index - 1, head = the Detect-like module (else the last).
  int head = -1;
  for (const auto& l : s.layers) {
    if (l.index < 0) continue;
    if (l.kind == "Detect" || l.kind == "Pose" || l.kind == "Segment" || l.kind == "OBB")
      head = l.index;
  }
  if (head < 0)
    for (const auto& l : s.layers) head = std::max(head, l.index);
  if (head >= 0) {
    const int backbone_end = std::min(10, head - 1);
    PartSummary bb{"backbone", "0-" + std::to_string(backbone_end)};
    PartSummary neck{"neck", backbone_end + 1 <= head - 1
                                 ? std::to_string(backbone_end + 1) + "-" + std::to_string(head - 1)
                                 : "none"};
    PartSummary hd{"head", std::to_string(head)};
    PartSummary other{"other", "outside /model.N/"};
    for (const auto& l : s.layers) {
      PartSummary& p = l.index < 0               ? other
                       : l.index <= backbone_end ? bb
                       : l.index < head          ? neck
                                                 : hd;
      p.params += l.params;
      p.flops += l.flops;
    }
    s.parts = {bb, neck, hd};
    if (other.params || other.flops) s.parts.push_back(other);
  }
  return s;
}

ModelSummary summarize_model(const Graph& g) {
  bool quantized = false;
  for (const auto& n : g.nodes) quantized |= is_qdq_op(n);
  Graph view = quantized ? strip_qdq(g) : g;
  Executor ex(view);
  ex.prepare();
  ModelSummary s = summarize_model(view, [&](const std::string& v) { return ex.desc(v).shape; });
  if (quantized) {  // report the file's own nodes and I/O types; the rest is of the float view
    const ShapeOf shape_of = [&](const std::string& v) { return ex.desc(v).shape; };
    s.inputs = g.inputs;
    s.outputs = g.outputs;
    for (auto* vs : {&s.inputs, &s.outputs})
      for (ValueInfo& v : *vs) v.shape = shape_of(v.name);
    const IoBytes io = io_bytes(g, shape_of);
    s.input_bytes = io.in;
    s.output_bytes = io.out;
    s.nodes = static_cast<int>(g.nodes.size());
    s.op_histogram.clear();
    s.qdq_nodes = 0;
    for (const auto& n : g.nodes) {
      s.op_histogram[n.op_type]++;
      s.qdq_nodes += is_qdq_op(n);
    }
  }
  return s;
}

}  // namespace edgeq
