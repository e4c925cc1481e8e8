// ONNX model <-> Graph, through the ONNX protobuf (libonnx-dev).
#pragma once
#include <string>

#include "ir/graph.h"

namespace edgeq {

// Parses an ONNX model file. Throws a one-line Error for missing, truncated or non-ONNX files.
Graph load_onnx(const std::string& path);
// The bytes of an ONNX file; one that does not start as a ModelProto does is refused before the
// rest of it is read.
std::string read_onnx_file(const std::string& path);
Graph parse_onnx(const std::string& bytes, const std::string& what = "model");
// Parses one serialized ONNX TensorProto (a .pb file of the ONNX test data format).
Tensor parse_onnx_tensor(const std::string& bytes, const std::string& what = "tensor");
// Serializes the graph as an ONNX model (initializers as raw_data) and writes it atomically.
void save_onnx(const Graph& g, const std::string& path);
std::string serialize_onnx(const Graph& g);

}  // namespace edgeq
