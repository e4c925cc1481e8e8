#include "ir/node_work.h"

#include "core/error.h"

namespace edgeq {
namespace {

int64_t product(const Shape& s, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

}  // namespace

int64_t node_flops(const Node& n, const ShapeOf& shape_of) {
  const std::string& op = n.op_type;
  if (op == "Conv" || op == "QConv") {  // 2 * Cout*Hout*Wout*N * (Cin/groups)*kh*kw
    Shape w = shape_of(n.inputs.at(1));
    return 2 * shape_numel(shape_of(n.outputs.at(0))) * product(w, 1);
  }
  if (op == "ConvTranspose") {  // every input element meets (Cout/groups)*kh*kw weights
    Shape w = shape_of(n.inputs.at(1));
    return 2 * shape_numel(shape_of(n.inputs.at(0))) * product(w, 1);
  }
  if (op == "MatMul") {
    Shape a = shape_of(n.inputs.at(0));
    int64_t k = a.empty() ? 1 : a.back();
    return 2 * shape_numel(shape_of(n.outputs.at(0))) * k;
  }
  if (op == "Gemm") {
    Shape a = shape_of(n.inputs.at(0));
    EDGEQ_CHECK(a.size() == 2, n.describe(), ": Gemm input A must be 2-D");
    int64_t k = n.attr_int("transA", 0) ? a[0] : a[1];
    return 2 * shape_numel(shape_of(n.outputs.at(0))) * k;
  }
  return 0;
}

}  // namespace edgeq
