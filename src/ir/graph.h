// The in-memory graph IR: nodes connected by value names (as in ONNX), initializers as Tensors.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ir/node_plan.h"

namespace edgeq {

struct Attribute {
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  Tensor t;

  static Attribute integer(int64_t v);
  static Attribute real(float v);
  static Attribute string(std::string v);
  static Attribute integers(std::vector<int64_t> v);
  static Attribute reals(std::vector<float> v);
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;               // "" for the default ONNX domain
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attrs;
  NodePlan plan = {};  // the executor's decisions (ir/node_plan.h); never in ONNX

  bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
  int64_t attr_int(const std::string& key, int64_t def) const;
  float attr_float(const std::string& key, float def) const;
  std::string attr_string(const std::string& key, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& key, std::vector<int64_t> def = {}) const;
  std::vector<float> attr_floats(const std::string& key, std::vector<float> def = {}) const;
  // Input i if present and non-empty.
  bool has_input(size_t i) const { return i < inputs.size() && !inputs[i].empty(); }
  // "name (op)" for messages.
  std::string describe() const;
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;  // -1 for an unknown (symbolic) dimension
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

struct Graph {
  std::string name = "edgeq";
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::map<std::string, Tensor> initializers;
  std::vector<ValueInfo> value_info;  // known intermediate shapes (kept for round trips)

  // Model-level fields kept for a faithful save.
  int64_t ir_version = 8;
  std::vector<OpsetImport> opsets{{"", 17}};
  std::string producer_name = "edgeq";
  std::string producer_version;
  std::string doc_string;
  std::vector<std::pair<std::string, std::string>> metadata;

  int64_t opset(const std::string& domain = "") const;
  void set_opset(const std::string& domain, int64_t version);
  std::optional<std::string> metadata_value(const std::string& key) const;

  bool is_initializer(const std::string& v) const { return initializers.count(v) != 0; }
  const ValueInfo* find_input(const std::string& v) const;
  // Index of the node producing value v, or -1 (graph input, initializer or unknown).
  int producer_of(const std::string& v) const;
  // Indices of nodes reading value v.
  std::vector<int> consumers_of(const std::string& v) const;

  // Node indices in a valid execution order; throws naming the node when an input is undefined
  // or the graph has a cycle.
  std::vector<int> topo_order() const;
  // Reorders `nodes` topologically.
  void sort_topologically();
  // Drops nodes (and initializers) whose outputs cannot reach any graph output.
  void remove_dead_nodes();
  // A value name not yet used in the graph, starting with `base`.
  std::string unique_name(const std::string& base) const;
};

}  // namespace edgeq
