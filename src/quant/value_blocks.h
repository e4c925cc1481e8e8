// Blocks of a YOLO model's values, by the module path of the node that makes each value
// (Ultralytics export names, "/model.N/<sub>/..."), for sensitivity and the mixed-precision search:
//   the head (the last layer): one block per branch ("/model.23/cv2.0", ...) and one for its
//     tail after the branches ("/model.23": Concat / Split / DFL / decode);
//   other layers: one block per first sub-module ("/model.2/m.0", "/model.2/cv1",
//     "/model.10/m"), and the layer's own nodes ("/model.2": its Split, Concat, ...).
// A value whose node has no such name (a graph input, a renamed output) is a block of its own.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// Block name of each of `values` (in the order given); blocks keep the values' order.
std::map<std::string, std::vector<std::string>> value_blocks(
    const Graph& g, const std::vector<std::string>& values);
// The block name for one value.
std::string block_of(const Graph& g, const std::string& value);

}  // namespace edgeq
