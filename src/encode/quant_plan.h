// QuantPlan: which nodes run quantized, which activations get an encoding, and which
// activations must share one encoding (ops that only move values), for a placement.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "encode/quant_config.h"
#include "ir/graph.h"

namespace edgeq {

struct QuantPlan {
  std::set<int> quantized_nodes;                // indices into graph.nodes
  std::vector<std::string> activations;         // values that get an encoding, in graph order
  std::map<std::string, std::string> group_of;  // activation -> its group's first member
  std::map<std::string, std::vector<std::string>> groups;  // first member -> members

  bool is_quantized(const std::string& v) const { return group_of.count(v) != 0; }
};

// Whether ONNX Runtime's QDQ quantizer handles op_type (kOrt); kQnn handles every op that makes
// float data. (Facts about ops come from the op traits table, ir/op_traits.h.)
bool is_quantizable_op(const std::string& op_type, Placement placement);
// Input indices of a node that carry tensor data to quantize (e.g. only 0 for Resize, whose
// roi / scales inputs are parameters; 1 and 2 for Where): the op's data inputs.
std::vector<size_t> data_inputs(const Node& node);
// Ops whose outputs share the encoding of their (data) input under the placement.
bool shares_encoding(const std::string& op_type, Placement placement);

// `is_activation(v)`: v is a float activation with calibration statistics (graph inputs
// included); only those get encodings. Throws naming the first unknown excluded node.
QuantPlan plan_quantization(const Graph& g, const QuantConfig& config,
                            const std::function<bool(const std::string&)>& is_activation);

}  // namespace edgeq
