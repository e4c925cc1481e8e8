// How edgeq reads an Ultralytics YOLO model, in one place for run, compare, doctor, calibrate and
// the mixed-precision search: its image input and its head output (the layout of that output is
// vision/yolo_layout.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// The model's single image input [N,3,H,W]; throws saying what it found otherwise.
const ValueInfo& yolo_image_input(const Graph& g);
// Height and width of the image input (640 for a dynamic dimension).
int yolo_input_height(const Graph& g);
int yolo_input_width(const Graph& g);

// The head output: "output0", or else the only output when it is rank 3 ([1, C, anchors]); for a
// raw-head model (ir/raw_head.h) the output its host decode makes; nullopt when there is none.
// Throws when a raw-head model's metadata is damaged.
std::optional<std::string> yolo_head_output(const Graph& g);
// Same, but throws listing the model's outputs when there is none.
std::string require_yolo_head_output(const Graph& g);

// What a run of the model returns (runtime/executor.h): the graph outputs and, for a raw-head
// model, the decoded output0 the host decode adds.
std::vector<ValueInfo> run_outputs(const Graph& g);

// "name [shape], ..." of the model's outputs, for messages.
std::string describe_outputs(const Graph& g);

}  // namespace edgeq
