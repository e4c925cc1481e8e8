#include "runtime/fake_quant.h"

#include <sstream>

#include "core/simd.h"
#include "ir/op_traits.h"

namespace edgeq {

namespace {

EDGEQ_ALWAYS_INLINE void fake_quant_body(const float* x, float* y, int64_t n, float s, float lo,
                                         float hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = fake_quant(x[i], s, lo, hi);
}
// std::rint becomes one rounding instruction from SSE4.1 on: the baseline clone is much slower.
EDGEQ_SIMD_CLONES(, void, fake_quant_clone, fake_quant_body,
                  (const float* x, float* y, int64_t n, float s, float lo, float hi),
                  (x, y, n, s, lo, hi))

}  // namespace

void fake_quant_span(const float* x, float* y, int64_t n, const FakeQuantParams& p) {
  simd_pick(fake_quant_clone_avx512, fake_quant_clone_avx2, fake_quant_clone_scalar)(
      x, y, n, p.scale, p.lo, p.hi);
}

std::optional<FakeQuantParams> output_grid(const Node& n, const Grids& known) {
  if (n.plan.out.active()) return n.plan.out;
  if (!moves_values(n)) return std::nullopt;
  std::optional<FakeQuantParams> common;
  for (size_t k : data_input_indices(n)) {
    if (!n.has_input(k)) continue;
    auto on = known.find(n.inputs[k]);
    if (on == known.end() || (common && *common != on->second)) return std::nullopt;
    common = on->second;
  }
  return common;
}

}  // namespace edgeq
