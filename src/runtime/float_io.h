// A model whose graph inputs or outputs carry integer codes (quantize --quantize-io, or another
// toolchain's quantized-I/O export) seen with float inputs and outputs, so that every command that
// feeds letterboxed images and reads float outputs runs it unchanged:
//   an integer graph input that only DequantizeLinear nodes read (with constant scale and zero
//     point, one encoding) becomes a float input that a QuantizeLinear with those parameters
//     turns into the codes: a letterboxed image quantized after letterboxing;
//   an integer graph output written by a QuantizeLinear (constant parameters) gets a
//     DequantizeLinear with the same parameters and keeps its name: the codes dequantized.
// Running the view equals running the model on the quantized input and dequantizing its outputs
// (the same Q and DQ formula). Other integer inputs and outputs are left as they are.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/encoding.h"
#include "ir/graph.h"

namespace edgeq {

// One end of a model that carries codes.
struct CodedValue {
  std::string name;
  bool input = false;
  Encoding encoding;
};

// The graph inputs and outputs of `g` that carry codes, as described above (empty for a model
// with float I/O).
std::vector<CodedValue> coded_io(const Graph& g);

// Rewrites `g` into its float-I/O view; returns the values it changed.
std::vector<CodedValue> float_io_view(Graph& g);

// Bytes the graph inputs and outputs of `g` carry per run, in the types the file declares (codes
// for a quantized-I/O model), with the shapes `shape_of` gives (an executor's planned shapes).
struct IoBytes {
  int64_t in = 0, out = 0;
};
IoBytes io_bytes(const Graph& g, const std::function<Shape(const std::string&)>& shape_of);

}  // namespace edgeq
