#include "edgeq/quantize_io.h"

#include "api/api_impl.h"
#include "encode/qdq_import.h"
#include "encode/quantize_io.h"
#include "ir/onnx_io.h"

namespace edgeq {

Model quantize_model_io(const Model& qdq, const CalibrationStats& stats, QuantizeIo which) {
  (void)edgeq::name(which);  // an out-of-range value throws
  QdqModel q;
  q.graph = impl_of(qdq).graph;
  q.encodings = encodings_from_qdq(q.graph);
  quantize_io(q, which, impl_of(stats).stats);
  return Model::from_bytes(serialize_onnx(q.graph), qdq.name());
}

}  // namespace edgeq
