#include "runtime/fusion.h"

#include <utility>
#include <vector>

#include "runtime/fake_quant.h"
#include "runtime/graph_rewrite.h"

namespace edgeq {
namespace {

// The Sigmoid and Mul nodes computing Mul(x, Sigmoid(x)) from x, when the Sigmoid's output is
// read by that Mul alone and is not protected; {-1, -1} otherwise.
std::pair<int, int> silu_nodes(const Graph& g, Readers& readers, const std::string& x,
                               const std::set<std::string>& protect) {
  int sig = -1, mul = -1;
  for (int r : readers[x]) {
    const Node& n = g.nodes[r];
    if (n.op_type == "Sigmoid" && n.domain.empty() && !n.plan.silu) sig = r;
  }
  if (sig < 0) return {-1, -1};
  const std::string& s = g.nodes[sig].outputs[0];
  if (protect.count(s) || readers[s].size() != 1) return {-1, -1};
  mul = readers[s][0];
  const Node& m = g.nodes[mul];
  bool operands_ok =
      m.op_type == "Mul" && m.domain.empty() && m.inputs.size() == 2 &&
      ((m.inputs[0] == x && m.inputs[1] == s) || (m.inputs[0] == s && m.inputs[1] == x));
  return operands_ok ? std::make_pair(sig, mul) : std::make_pair(-1, -1);
}

}  // namespace

int fuse_conv_silu(Graph& g, const std::set<std::string>& protect) {
  Readers readers = readers_of(g);
  std::vector<bool> drop(g.nodes.size(), false);
  int fused = 0;
  for (size_t ci = 0; ci < g.nodes.size(); ++ci) {
    Node& conv = g.nodes[ci];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.plan.silu) continue;
    const std::string& x = conv.outputs[0];
    if (protect.count(x) || readers[x].size() != 2 || conv.plan.out.active()) continue;
    auto [sig, mul] = silu_nodes(g, readers, x, protect);
    if (sig < 0) continue;
    // oneDNN's swish post-op cannot quantize sigmoid(x) before the multiplication.
    if (g.nodes[sig].plan.out.active() || g.nodes[mul].plan.out.active()) continue;
    conv.plan.silu = true;
    conv.outputs[0] = g.nodes[mul].outputs[0];
    drop[sig] = drop[mul] = true;
    ++fused;
  }
  drop_nodes(g, drop);
  return fused;
}

int fuse_sigmoid_mul(Graph& g, const std::set<std::string>& protect) {
  Readers readers = readers_of(g);
  std::vector<bool> drop(g.nodes.size(), false);
  std::set<std::string> seen;
  int fused = 0;
  for (size_t si = 0; si < g.nodes.size(); ++si) {
    const Node& n = g.nodes[si];
    if (n.op_type != "Sigmoid" || n.inputs.empty() || !seen.insert(n.inputs[0]).second) continue;
    auto [sig, mul] = silu_nodes(g, readers, n.inputs[0], protect);
    if (sig != static_cast<int>(si)) continue;
    Node& sigmoid = g.nodes[sig];
    sigmoid.plan.silu = true;
    sigmoid.outputs[0] = g.nodes[mul].outputs[0];
    // Quantization points move along: the Sigmoid's output step applies before the
    // multiplication, the Mul's to the result.
    FakeQuantParams inner = sigmoid.plan.out, outer = g.nodes[mul].plan.out;
    sigmoid.plan.out = {};
    if (inner.active()) sigmoid.plan.inner = inner;
    if (outer.active()) sigmoid.plan.out = outer;
    drop[mul] = true;
    ++fused;
  }
  drop_nodes(g, drop);
  return fused;
}

}  // namespace edgeq
