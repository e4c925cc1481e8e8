// Encodings files in the forms QNN / AIMET tools read:
//   1.0.0  {"version": "1.0.0", "activation_encodings": [...], "param_encodings": [...]}, each
//          entry {name, dtype INT|FLOAT, enc_type PER_TENSOR|PER_CHANNEL, bw, is_sym, scale[],
//          offset[]} (FLOAT entries: name, dtype, enc_type, bw only);
//   0.6.1  {"version": "0.6.1", "activation_encodings": {name: [...]}, "param_encodings":
//          {name: [...]}}, one {bitwidth, dtype "int", is_symmetric "True"|"False", max, min,
//          offset, scale} per channel (or {bitwidth, dtype "float"}).
// Offsets are AIMET's: real = (q + offset) * scale on the unsigned grid (core/encoding.h).
// Neither form stores the channel axis: per-channel encodings read back with axis 0.
// A model with quantized inputs / outputs (encode/quantize_io.h) adds "io_encodings" in the same
// form: the encodings of the codes its graph inputs and outputs carry. Absent otherwise.
#pragma once
#include <map>
#include <string>

#include "encode/weight_encoding.h"

namespace edgeq {

struct EncodingSet {
  std::map<std::string, TensorEncoding> activations;
  std::map<std::string, TensorEncoding> params;
  std::map<std::string, TensorEncoding> io;  // graph inputs / outputs that carry codes
};

// version: "1.0.0" or "0.6.1"; throws for others.
std::string encodings_to_json(const EncodingSet& set, const std::string& version = "1.0.0");
// Detects the form (lists: 1.0.0, dicts: 0.6.1). Throws one line naming `what`, the section,
// the entry and the field at fault.
EncodingSet encodings_from_json(const std::string& text, const std::string& what);

void save_encodings(const EncodingSet& set, const std::string& path,
                    const std::string& version = "1.0.0");  // atomic
// Refuses a file that holds no encoding (nothing to judge).
EncodingSet load_encodings(const std::string& path);

}  // namespace edgeq
