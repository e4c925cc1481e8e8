// The SiLU of a QDQ graph, Mul(x, DQ(Q(Sigmoid(x)))), then its output's QuantizeLinear /
// DequantizeLinear pair: y = fake_quant(x * fake_quant(sigmoid(x), inner), outer) for each value,
// bit-identical to the scalar formula (core/fast_math.h, runtime/fake_quant.h) at every SIMD
// level. W8A16 simulation spends most of its time outside the convs here (one exp and three
// divisions a value). Without the inner step it is the float SiLU, x * sigmoid(x) (silu_fast),
// as an unfused Sigmoid * Mul and the Winograd convolutions (winograd_conv.h) take it.
#pragma once
#include <cstdint>

#include "ir/node_plan.h"

namespace edgeq {

// y[i] for n values (x may equal y), single-threaded; `inner` and `outer` may be inactive (no
// step there).
void silu_fake_quant_span(const float* x, float* y, int64_t n, const FakeQuantParams& inner,
                          const FakeQuantParams& outer);

}  // namespace edgeq
