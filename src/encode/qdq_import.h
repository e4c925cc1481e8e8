// Reading encodings back from any QDQ model (ours or a third party's): every DequantizeLinear
// whose scale and zero point are constants gives one encoding.
//   data from a constant (initializer or Constant node): a param encoding, named after the
//     DequantizeLinear output (ORT's "_DequantizeLinear_Output" suffix stripped);
//   data from a QuantizeLinear: an activation encoding, named after that QuantizeLinear's input
//     (ORT's and edgeq's "_QuantizeLinear_Input" suffix stripped).
// Per-axis parameters become per-channel encodings on the DequantizeLinear's axis.
#pragma once
#include "encode/encodings_json.h"
#include "ir/graph.h"

namespace edgeq {

EncodingSet encodings_from_qdq(const Graph& g);

}  // namespace edgeq
