#include "ir/graph.h"

#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"

namespace edgeq {

Attribute Attribute::integer(int64_t v) {
  Attribute a;
  a.kind = Kind::kInt;
  a.i = v;
  return a;
}

Attribute Attribute::real(float v) {
  Attribute a;
  a.kind = Kind::kFloat;
  a.f = v;
  return a;
}

Attribute Attribute::string(std::string v) {
  Attribute a;
  a.kind = Kind::kString;
  a.s = std::move(v);
  return a;
}

Attribute Attribute::integers(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Kind::kInts;
  a.ints = std::move(v);
  return a;
}

Attribute Attribute::reals(std::vector<float> v) {
  Attribute a;
  a.kind = Kind::kFloats;
  a.floats = std::move(v);
  return a;
}

int64_t Node::attr_int(const std::string& key, int64_t def) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? def : it->second.i;
}
float Node::attr_float(const std::string& key, float def) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? def : it->second.f;
}
std::string Node::attr_string(const std::string& key, const std::string& def) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? def : it->second.s;
}
std::vector<int64_t> Node::attr_ints(const std::string& key, std::vector<int64_t> def) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? def : it->second.ints;
}
std::vector<float> Node::attr_floats(const std::string& key, std::vector<float> def) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? def : it->second.floats;
}
std::string Node::describe() const {
  return "node '" + (name.empty() ? (outputs.empty() ? "?" : outputs[0]) : name) + "' (" +
         (domain.empty() ? "" : domain + ".") + op_type + ")";
}

int64_t Graph::opset(const std::string& domain) const {
  for (const auto& o : opsets)
    if (o.domain == domain || (domain.empty() && o.domain == "ai.onnx")) return o.version;
  return 0;
}

void Graph::set_opset(const std::string& domain, int64_t version) {
  for (auto& o : opsets)
    if (o.domain == domain) {
      o.version = version;
      return;
    }
  opsets.push_back({domain, version});
}

std::optional<std::string> Graph::metadata_value(const std::string& key) const {
  for (const auto& kv : metadata)
    if (kv.first == key) return kv.second;
  return std::nullopt;
}

const ValueInfo* Graph::find_input(const std::string& v) const {
  for (const auto& in : inputs)
    if (in.name == v) return &in;
  return nullptr;
}

int Graph::producer_of(const std::string& v) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (o == v) return static_cast<int>(i);
  return -1;
}

std::vector<int> Graph::consumers_of(const std::string& v) const {
  std::vector<int> out;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].inputs)
      if (in == v) {
        out.push_back(static_cast<int>(i));
        break;
      }
  return out;
}

std::vector<int> Graph::topo_order() const {
  std::unordered_map<std::string, int> producer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty()) {
        if (producer.count(o) || initializers.count(o) || find_input(o))
          fail("value '", o, "' is defined twice (", nodes[i].describe(), ")");
        producer[o] = static_cast<int>(i);
      }
  std::vector<int> pending(nodes.size(), 0);
  std::vector<std::vector<int>> users(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::set<int> deps;
    for (const auto& in : nodes[i].inputs) {
      if (in.empty() || initializers.count(in) || find_input(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end())
        fail(nodes[i].describe(), " reads '", in, "', which no node, input or initializer defines");
      deps.insert(it->second);
    }
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) users[d].push_back(static_cast<int>(i));
  }
  // Kahn's algorithm; the queue is ordered by original index to keep the file's order stable.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  while (!ready.empty()) {
    int n = ready.top();
    ready.pop();
    order.push_back(n);
    for (int u : users[n])
      if (--pending[u] == 0) ready.push(u);
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] > 0) fail("graph has a cycle through ", nodes[i].describe());
  }
  return order;
}

void Graph::sort_topologically() {
  auto order = topo_order();
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  for (int i : order) sorted.push_back(std::move(nodes[i]));
  nodes = std::move(sorted);
}

void Graph::remove_dead_nodes() {
  std::unordered_set<std::string> live;
  for (const auto& o : outputs) live.insert(o.name);
  std::vector<bool> keep(nodes.size(), false);
  auto order = topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = nodes[*it];
    bool used = false;
    for (const auto& o : n.outputs) used |= live.count(o) != 0;
    if (!used) continue;
    keep[*it] = true;
    for (const auto& in : n.inputs) live.insert(in);
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  nodes = std::move(kept);
  for (auto it = initializers.begin(); it != initializers.end();)
    it = live.count(it->first) ? std::next(it) : initializers.erase(it);
  std::vector<ValueInfo> vi;
  for (auto& v : value_info)
    if (live.count(v.name)) vi.push_back(v);
  value_info = std::move(vi);
}

std::string Graph::unique_name(const std::string& base) const {
  std::unordered_set<std::string> used;
  for (const auto& n : nodes) {
    used.insert(n.name);
    for (const auto& o : n.outputs) used.insert(o);
  }
  for (const auto& kv : initializers) used.insert(kv.first);
  for (const auto& in : inputs) used.insert(in.name);
  if (!used.count(base)) return base;
  for (int k = 1;; ++k) {
    std::string cand = base + "_" + std::to_string(k);
    if (!used.count(cand)) return cand;
  }
}

}  // namespace edgeq
