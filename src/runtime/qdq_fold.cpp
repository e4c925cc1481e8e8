#include "runtime/qdq_fold.h"

#include <limits>
#include <map>
#include <optional>

#include "ir/op_traits.h"
#include "runtime/fake_quant.h"
#include "runtime/fusion.h"
#include "runtime/graph_rewrite.h"

namespace edgeq {
namespace {

bool is_q_node(const Node& n, const char* op) {
  return n.op_type == op && (n.domain.empty() || n.domain == "com.microsoft");
}

// Per-tensor parameters of a Q or DQ node: scale and zero point (0 when omitted), when both are
// one-element constants.
struct QParams {
  float scale;
  int64_t zero_point;
  bool operator==(const QParams& o) const { return scale == o.scale && zero_point == o.zero_point; }
};

std::optional<QParams> params_of(const Node& n, const ValueDescs& descs) {
  if (!n.has_input(1)) return std::nullopt;
  auto s = descs.find(n.inputs[1]);
  if (s == descs.end() || !s->second.constant || s->second.constant->numel() != 1 ||
      s->second.constant->dtype() != DType::kFloat32)
    return std::nullopt;
  QParams p{s->second.constant->data<float>()[0], 0};
  if (n.has_input(2)) {
    auto z = descs.find(n.inputs[2]);
    if (z == descs.end() || !z->second.constant || z->second.constant->numel() != 1)
      return std::nullopt;
    p.zero_point = z->second.constant->to_ints().at(0);
  }
  if (!(p.scale > 0) || !std::isfinite(p.scale)) return std::nullopt;  // the Q kernel refuses it
  return p;
}

std::optional<std::pair<int64_t, int64_t>> code_range(DType t) {
  switch (t) {
    case DType::kUInt8:
      return std::make_pair<int64_t, int64_t>(0, 255);
    case DType::kInt8:
      return std::make_pair<int64_t, int64_t>(-128, 127);
    case DType::kUInt16:
      return std::make_pair<int64_t, int64_t>(0, 65535);
    case DType::kInt16:
      return std::make_pair<int64_t, int64_t>(-32768, 32767);
    default:
      return std::nullopt;
  }
}

Node fake_quant_node(const Node& q, const std::string& x, const std::string& y,
                     const FakeQuantParams& p) {
  Node f;
  f.name = q.name;
  f.op_type = "FakeQuant";
  f.domain = "edgeq";
  f.inputs = {x};
  f.outputs = {y};
  f.plan.out = p;
  return f;
}

bool is_fake_quant(const Node& n) {
  return n.op_type == "FakeQuant" && n.domain == "edgeq";
}

}  // namespace

int fold_qdq_pairs(Graph& g, const ValueDescs& descs, const std::set<std::string>& protect) {
  Readers readers = readers_of(g);
  std::vector<bool> drop(g.nodes.size(), false);
  int folded = 0;
  for (size_t qi = 0; qi < g.nodes.size(); ++qi) {
    const Node q = g.nodes[qi];
    if (!is_q_node(q, "QuantizeLinear") || q.outputs.size() != 1 || !q.has_input(0)) continue;
    const std::string& codes = q.outputs[0];
    auto qp = params_of(q, descs);
    auto xd = descs.find(q.inputs[0]);
    auto cd = descs.find(codes);
    if (!qp || protect.count(codes) || xd == descs.end() || xd->second.constant ||
        xd->second.dtype != DType::kFloat32 || cd == descs.end())
      continue;
    auto range = code_range(cd->second.dtype);
    const std::vector<int>& dqs = readers[codes];
    bool all_dq = range && !dqs.empty();
    for (int r : dqs) {
      const Node& dq = g.nodes[r];
      all_dq = all_dq && is_q_node(dq, "DequantizeLinear") && dq.inputs[0] == codes &&
               dq.outputs.size() == 1 && params_of(dq, descs) == qp;
    }
    if (!all_dq) continue;
    FakeQuantParams p{qp->scale, static_cast<float>(range->first - qp->zero_point),
                      static_cast<float>(range->second - qp->zero_point)};
    const std::string& y = g.nodes[dqs[0]].outputs[0];
    g.nodes[qi] = fake_quant_node(q, q.inputs[0], y, p);
    drop[dqs[0]] = true;
    // Further DequantizeLinear readers of the same codes read the first one's output.
    for (size_t k = 1; k < dqs.size(); ++k) {
      Node& dq = g.nodes[dqs[k]];
      if (protect.count(dq.outputs[0])) {
        dq = Node{dq.name, "Identity", "", {y}, {dq.outputs[0]}, {}};
      } else {
        drop[dqs[k]] = true;
        rename_input(g, dq.outputs[0], y);
      }
    }
    ++folded;
  }
  drop_nodes(g, drop);
  return folded;
}

int drop_redundant_fake_quant(Graph& g, const std::set<std::string>& protect) {
  Grids grid;
  std::vector<bool> drop(g.nodes.size(), false);
  int dropped = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (is_fake_quant(n)) {
      const std::string &x = n.inputs[0], &y = n.outputs[0];
      auto on = grid.find(x);
      if (on != grid.end() && on->second == n.plan.out && !protect.count(y)) {
        rename_input(g, y, x);  // x already holds exactly what the step would give
        drop[i] = true;
        ++dropped;
        continue;
      }
    }
    if (auto out = output_grid(n, grid))
      for (const std::string& o : n.outputs)
        if (!o.empty()) grid[o] = *out;
  }
  drop_nodes(g, drop);
  return dropped;
}

bool absorbs_fake_quant(const Node& n) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.plan.out.active()) return false;
  // A fused activation (Conv + SiLU, Sigmoid inside a SiLU) runs after the step would.
  return op_traits(n).fuses_fake_quant && !n.plan.silu;
}

int fuse_fake_quant(Graph& g, const std::set<std::string>& protect) {
  Readers readers = readers_of(g);
  std::map<std::string, int> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& o : g.nodes[i].outputs) producer[o] = static_cast<int>(i);
  std::vector<bool> drop(g.nodes.size(), false);
  int fused = 0;
  for (size_t fi = 0; fi < g.nodes.size(); ++fi) {
    const Node& f = g.nodes[fi];
    if (!is_fake_quant(f)) continue;
    const std::string& x = f.inputs[0];
    auto p = producer.find(x);
    if (p == producer.end() || protect.count(x) || readers[x].size() != 1) continue;
    Node& prod = g.nodes[p->second];
    if (!absorbs_fake_quant(prod)) continue;
    prod.plan.out = f.plan.out;
    prod.outputs[0] = f.outputs[0];
    drop[fi] = true;
    ++fused;
  }
  drop_nodes(g, drop);
  return fused;
}

}  // namespace edgeq
