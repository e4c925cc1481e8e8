#include "analysis/float_tails.h"

#include <map>
#include <set>

#include "analysis/placement_advice.h"
#include "analysis/qdq_view.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

bool has_qdq(const Graph& g) {
  for (const Node& n : g.nodes)
    if (is_qdq_op(n)) return true;
  return false;
}

std::set<std::string> constants_of(const Graph& g) {
  std::set<std::string> c;
  for (const auto& kv : g.initializers) c.insert(kv.first);
  for (const Node& n : g.nodes)
    if (n.op_type == "Constant") c.insert(n.outputs.begin(), n.outputs.end());
  return c;
}

// Values computed only from constants (shape arithmetic and the like).
std::set<std::string> constant_values(const Graph& g) {
  std::set<std::string> c = constants_of(g);
  for (int i : g.topo_order()) {
    const Node& n = g.nodes[i];
    if (is_qdq_op(n)) continue;
    bool all = !n.inputs.empty();
    for (const std::string& in : n.inputs)
      if (!in.empty() && !c.count(in)) all = false;
    if (all || n.op_type == "Shape" || n.op_type == "Size")
      c.insert(n.outputs.begin(), n.outputs.end());
  }
  return c;
}

// What a user changes so that the target runs the tail: the placement the target's table asks
// for when the model's Q/DQ sit otherwise (placement qnn quantizes the Concats and the tail, the
// decode at 16 bit), else quantizing the tail; or the decode off the graph, on the host.
std::string float_tail_remedy(const Graph& g, const TargetOps& target) {
  const std::string host = "cut the decode off the graph and run it on the host";
  const std::optional<Placement> have = guess_placement(g);
  if (target.placement == Placement::kQnn && have != Placement::kQnn)
    return "quantize with placement '" + std::string(name(target.placement)) + "' (" +
           target.target + "'s placement: every op quantized, the decode tail at 16 bit) or " +
           host;
  return "quantize the tail too (its values at 16 bit) or " + host;
}

}  // namespace

std::vector<int> float_nodes(const Graph& g) {
  if (!has_qdq(g)) return {};
  std::set<std::string> constant = constant_values(g);
  std::vector<int> out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (is_qdq_op(n) || is_shape_op(n.op_type) ||
        constant.count(n.outputs.empty() ? "" : n.outputs[0]))
      continue;
    bool quantized = true;
    for (const std::string& in : n.inputs) {
      if (in.empty() || constant.count(in)) continue;
      int p = g.producer_of(in);
      if (p < 0 || g.nodes[p].op_type != "DequantizeLinear") quantized = false;
    }
    for (const std::string& o : n.outputs) {
      std::vector<int> cs = g.consumers_of(o);
      bool is_output = false;
      for (const ValueInfo& v : g.outputs) is_output |= v.name == o;
      if (is_output) quantized = false;
      for (int c : cs)
        if (g.nodes[c].op_type != "QuantizeLinear") quantized = false;
    }
    if (!quantized) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<Finding> float_tail_findings(const Graph& g, const TargetOps& target) {
  std::vector<Finding> out;
  if (!has_qdq(g)) {
    out.push_back({Severity::kInfo,
                   "float-tail",
                   "",
                   "",
                   "model has no QuantizeLinear / DequantizeLinear: every op runs in float "
                   "(quantize it, or give its encodings, to judge placement)",
                   0,
                   {}});
    return out;
  }
  Severity npu = target.is_npu ? Severity::kWarning : Severity::kInfo;
  std::vector<int> fl = float_nodes(g);
  std::set<int> fl_set(fl.begin(), fl.end());
  // Float nodes that reach a graph output only through float nodes: the tail.
  std::set<std::string> outputs;
  for (const ValueInfo& v : g.outputs) outputs.insert(v.name);
  std::set<int> tail;
  std::vector<int> todo;
  std::set<std::string> coded;  // inputs / outputs that carry codes (quantize --quantize-io)
  for (const CodedValue& c : coded_io(g)) coded.insert(c.name);
  for (const ValueInfo& v : g.outputs) {
    int p = g.producer_of(v.name);
    // An output carrying codes: the tail is what feeds its QuantizeLinear.
    if (p >= 0 && coded.count(v.name)) p = g.producer_of(g.nodes[p].inputs.at(0));
    if (p >= 0 && fl_set.count(p)) todo.push_back(p);
  }
  while (!todo.empty()) {
    int i = todo.back();
    todo.pop_back();
    if (!tail.insert(i).second) continue;
    for (const std::string& in : g.nodes[i].inputs) {
      int p = in.empty() ? -1 : g.producer_of(in);
      if (p >= 0 && fl_set.count(p)) todo.push_back(p);
    }
  }
  for (int i : fl) {
    const Node& n = g.nodes[i];
    Finding f{npu, "float-op", "", n.name, "", tail.count(i) ? 2.0 : 1.0, {}};
    f.message = n.op_type + " runs in float outside Q/DQ" +
                std::string(tail.count(i) ? " (part of the float tail to the outputs)" : "") +
                "; on " + target.target + ": " + target.float_ops_run_on;
    out.push_back(f);
  }
  if (!tail.empty()) {
    std::map<std::string, int> ops;
    for (int i : tail) ops[g.nodes[i].op_type]++;
    std::string list;
    for (const auto& [op, k] : ops)
      list += (list.empty() ? "" : ", ") + std::to_string(k) + " " + op;
    Finding f{target.is_npu ? Severity::kError : Severity::kInfo,
              "float-tail",
              "",
              "",
              "",
              double(tail.size()),
              {{"nodes", double(tail.size())}}};
    f.message = "the graph ends in " + std::to_string(tail.size()) + " float ops (" + list +
                ") outside Q/DQ; " + target.target + ": " + target.float_ops_run_on;
    if (target.is_npu) f.message += "; to change: " + float_tail_remedy(g, target);
    out.push_back(f);
  }
  for (const ValueInfo& v : g.inputs) {
    if (coded.count(v.name)) continue;  // io_findings reports it
    for (int c : g.consumers_of(v.name)) {
      if (g.nodes[c].op_type == "QuantizeLinear") continue;
      Finding f{npu, "float-io", v.name, g.nodes[c].name, "", 1.5, {}};
      f.message = "graph input is read in float by " + g.nodes[c].describe() +
                  " (no QuantizeLinear at the input)";
      out.push_back(f);
      break;
    }
  }
  for (const ValueInfo& v : g.outputs) {
    int p = g.producer_of(v.name);
    if ((p >= 0 && g.nodes[p].op_type == "DequantizeLinear") || coded.count(v.name)) continue;
    Finding f{npu, "float-io", v.name, p >= 0 ? g.nodes[p].name : "", "", 1.5, {}};
    f.message = "graph output is float: written by " +
                (p >= 0 ? g.nodes[p].describe() : std::string("no node")) +
                ", not by a DequantizeLinear";
    out.push_back(f);
  }
  return out;
}

std::vector<Finding> op_support_findings(const Graph& model, const TargetOps& target) {
  Graph g = strip_qdq(model);
  std::set<std::string> constant = constant_values(g);
  std::map<std::string, std::vector<std::string>> by_op;  // op -> nodes
  for (const Node& n : g.nodes) {
    // What Q/DQ remain convert at the graph's ends (quantized I/O): no compute to place.
    if (is_qdq_op(n) || is_shape_op(n.op_type) ||
        (!n.outputs.empty() && constant.count(n.outputs[0])))
      continue;
    if (target.support(n.op_type) != TargetOps::Support::kYes) by_op[n.op_type].push_back(n.name);
  }
  std::vector<Finding> out;
  for (const auto& [op, nodes] : by_op) {
    TargetOps::Support s = target.support(op);
    Finding f;
    f.kind = "placement";
    f.node = nodes.front();
    f.numbers = {{"nodes", double(nodes.size())}};
    f.score = double(nodes.size());
    std::string where = std::to_string(nodes.size()) + " " + op + " node" +
                        (nodes.size() > 1 ? "s" : "") + " (first: " + nodes.front() + ")";
    std::string note = target.note(op);
    if (s == TargetOps::Support::kUncertain) {
      f.severity = Severity::kInfo;
      f.message = where + ": " + target.target + " support uncertain: " + note;
    } else {
      f.severity = target.is_npu ? Severity::kWarning : Severity::kInfo;
      f.message = where + ": " + target.target + " cannot run " + op +
                  " quantized -> would run on CPU" + (note.empty() ? "" : " (" + note + ")") +
                  (s == TargetOps::Support::kUnknown ? " (not in the target's op table)" : "");
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace edgeq
