// Fake quantization: a QuantizeLinear -> DequantizeLinear pair as one float step,
//   y = clamp(round_half_even(x / scale), qmin - zp, qmax - zp) * scale,
// bit-identical to running the two ONNX ops (QuantizeLinear: saturate(rint(x / scale) + zp);
// DequantizeLinear: (q - zp) * scale): rint(x / scale) is an integer-valued float, so adding and
// later subtracting zp is exact, and NaN saturates to qmin as the Q kernel does. A negative zero
// code becomes +0 (the integer code has no sign), so a code of 0 dequantizes to +0 here too.
#pragma once
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

inline float fake_quant(float x, float scale, float lo, float hi) {
  float k = std::rint(x / scale) + 0.0f;  // + 0.0f: -0 -> +0
  k = k > hi ? hi : k;
  k = k >= lo ? k : lo;  // NaN ends here too
  return k * scale;
}
inline float fake_quant(float x, const FakeQuantParams& p) {
  return fake_quant(x, p.scale, p.lo, p.hi);
}

// y[i] = fake_quant(x[i]) for n values (x may equal y); vectorized, single-threaded.
void fake_quant_span(const float* x, float* y, int64_t n, const FakeQuantParams& p);

// Values known to lie on a fake-quant grid, by name.
using Grids = std::map<std::string, FakeQuantParams>;
// The grid the outputs of `n` lie on, given what is known of its inputs: its own output step
// (n.plan.out: a FakeQuant node's or a fused kernel's), or for an op that only moves values
// (ir/op_traits.h) the one grid all its data inputs share; nothing otherwise.
std::optional<FakeQuantParams> output_grid(const Node& n, const Grids& known);

}  // namespace edgeq
