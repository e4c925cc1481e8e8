// Shared builders for the tiny hand-made graphs and QDQ models the tests use.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "calib/stats.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "ir/graph.h"

namespace edgeq::test {

// A node with the given name, op type, inputs and outputs (no attributes, default domain).
Node node(const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out);
Attribute int_attr(int64_t v);
Attribute ints_attr(std::vector<int64_t> v);

// x [1,2,4,4] -> Conv 1x1 (w, b) -> c -> Sigmoid -> s -> Reshape [1,2,16] -> r, with a scalar
// initializer "two" = 2 for the caller's tail; output y [1,4,16] is declared, the caller adds
// the nodes that write it.
Graph conv_sigmoid_reshape();

// `n` tensors [1,2,4,4] drawn uniformly from [lo, hi) by mt19937(seed), in draw order.
std::vector<Tensor> uniform_inputs(int n, unsigned seed, float lo, float hi);

// Statistics of `g` over `xs` fed to its input `input` (Calibrator, sha "test", "random").
Stats calibrate(const Graph& g, const std::string& input, const std::vector<Tensor>& xs);

struct QdqExport {
  Graph graph;
  QuantPlan plan;
};
// Plans `g` under `c` (activations: the values with statistics in `s`) and exports it as QDQ.
QdqExport export_qdq_model(const Graph& g, const Stats& s, const QuantConfig& c);

// x [1,4,10,10] -> Conv 3x3 (16 out, pad 1) -> y, random weights (seed) with a strong same-sign
// pair (channels 0 and 1 at the centre tap) in every output channel, and 4 inputs uniform in
// [0, 4) (8-bit codes across 0..255): a W8A8 export has int16 pairs that overflow on x86 without
// VNNI.
struct PairedConv {
  Graph graph;
  std::vector<Tensor> inputs;
};
PairedConv paired_conv_model(unsigned seed);

}  // namespace edgeq::test
