// What a model is made of: inputs/outputs, op histogram, and a per-layer table grouped by the
// Ultralytics module index in node names ("/model.N/..."), with each module's kind, output
// shape, parameters and FLOPs, and the split between backbone, neck and head.
//
// FLOPs are 2 x multiply-accumulates of Conv, ConvTranspose, MatMul and Gemm (the convention of
// Ultralytics' GFLOPs: thop MACs x 2). Elementwise work (activations, adds, pooling, softmax,
// the box decode) is counted separately, one op per output element.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/node_work.h"

namespace edgeq {

struct LayerSummary {
  int index = -1;      // module index N of "/model.N/"; -1 for nodes outside any module
  std::string kind;    // Conv, C3k2, C2f, SPPF, C2PSA, Upsample, Concat, Detect, Pose, ...
  std::string output;  // the value the module hands on (its last one, in execution order)
  Shape output_shape;
  int64_t output_bytes = 0;
  int nodes = 0;
  int64_t params = 0;
  int64_t flops = 0;            // 2 x MACs
  int64_t elementwise_ops = 0;  // one per output element of other arithmetic ops
};

// Totals of one part of the network.
struct PartSummary {
  std::string name;   // "backbone", "neck", "head", "other"
  std::string range;  // module indices, e.g. "0-10"
  int64_t params = 0, flops = 0;
};

struct ModelSummary {
  std::vector<ValueInfo> inputs, outputs;  // with planned shapes
  std::map<std::string, int> op_histogram;
  int nodes = 0;
  int qdq_nodes = 0;  // QuantizeLinear/DequantizeLinear nodes (the summary is of the float view)
  std::vector<LayerSummary> layers;  // by module index; nodes outside modules last
  std::vector<PartSummary> parts;    // backbone (0-10), neck (11 to head-1), head, other
  int64_t params = 0, flops = 0, elementwise_ops = 0;
  int64_t input_bytes = 0, output_bytes = 0;  // per frame (one run)
};

// Summarizes `g` with shapes from `shape_of`. A QDQ model is summarized as its float view
// (strip_qdq), so quantized weights count as the parameters they stand for.
ModelSummary summarize_model(const Graph& g, const ShapeOf& shape_of);
// The same with shapes from the executor's planner.
ModelSummary summarize_model(const Graph& g);

// Human-readable report (tables) and JSON.
std::string format_summary(const ModelSummary& s);
nlohmann::json summary_to_json(const ModelSummary& s);

}  // namespace edgeq
