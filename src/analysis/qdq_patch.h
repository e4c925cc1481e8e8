// Patch: re-encode chosen activations of a QDQ model in place, leaving everything else as it is.
//   - Only the scale / zero-point constants of those values' QuantizeLinear and DequantizeLinear
//     nodes change (and, when the bit width changes, the zero point's type, the Q/DQ domain for
//     16 bit below opset 21 as quant/qdq_export writes it, and a Q's output_dtype attribute).
//   - A shared encoding stays shared: values whose Q/DQ read the same scale / zero-point
//     constants, and values joined to a named one by a Concat or a move-only op with an
//     identical encoding (as placement qnn and ORT's movers make them), are re-encoded together;
//     the result says which were pulled in and why.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/encoding.h"
#include "ir/graph.h"

namespace edgeq {

struct PatchRequest {
  std::vector<std::string> values;  // activation names (float-view names, see qdq_view.h)
  double lo = 0, hi = 0;
  std::optional<int> bits;  // default: the first named value's current width
};

struct PatchResult {
  Graph graph;
  Encoding encoding;                   // the new encoding of every patched value
  std::vector<std::string> patched;    // named values and the group members pulled in
  std::vector<std::string> pulled_in;  // "value (reason)" for members not named
};

// Throws one line naming the value at fault (not in the model, not quantized, a constant).
PatchResult patch_qdq(const Graph& qdq, const PatchRequest& req);

}  // namespace edgeq
