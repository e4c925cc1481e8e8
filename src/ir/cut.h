// Cutting a YOLO11 model into arms and adding pooled feature taps.
//
// Layers are found from Ultralytics export node names ("/model.N/..."): layer N is every node
// whose name starts with "/model.N/". A layer's output is found by structure: the value(s) a
// node of the layer produces and a node outside the layer (or the graph output list) reads.
//
//   Arm A: backbone, layers 0-10, outputs = pooled taps only (tap_avg{N}, tap_max{N}).
//   Arm B: layers 0-22, outputs = the outputs of layers 16, 19, 22 (P3, P4, P5), plus taps.
//   Arm C: the full model, outputs = the model's outputs, plus taps when asked for.
//   Arm head: the raw head, found by structure (ir/raw_head.h): the graph up to the head's last
//   convolutions, their outputs the graph outputs, the decode left to the host; no taps.
// A tap of layer N is GlobalAveragePool and GlobalMaxPool of layer N's output ([1,C,1,1]).
#pragma once
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "ir/graph.h"

namespace edgeq {

// edgeq::Arm: edgeq/choices.h; parse<Arm>() (any case) / name(): "A" / "B" / "C"
// The default taps of arm A (and of "--taps" without a list): layers 4, 6, 8, 10.
std::vector<int> default_tap_layers();

struct CutSpec {
  Arm arm = Arm::kC;
  std::vector<int> taps;    // layer indices; arm A uses default_tap_layers() when empty
  bool taps_given = false;  // arm A: empty taps means defaults; B/C: empty means none
};

// Layer index of a node name ("/model.12/Concat" -> 12), or -1 when it has no such prefix.
int layer_of_node(const std::string& node_name);

// The output value of layer `layer`: the one value produced inside the layer and read outside
// it (by a later node or as a graph output). Throws when the model has no Ultralytics-style
// names, the layer does not exist, or it has not exactly one such value.
std::string layer_output(const Graph& g, int layer);

// Names of the tap outputs for layer N.
std::string tap_avg_name(int layer);
std::string tap_max_name(int layer);

// The cut model: new graph outputs (with shapes from ONNX's shape inference), dead nodes
// and unused initializers removed.
Graph cut_model(const Graph& model, const CutSpec& spec);

}  // namespace edgeq
