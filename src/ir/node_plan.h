// What the executor's planning passes (src/runtime/) decide for a node, as typed fields carried
// from the rewrite passes to the kernels. Never read from or written to ONNX: a graph loaded from
// a file has none, and saving a graph drops them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgeq {

// A fake-quant grid (runtime/fake_quant.h): y = clamp(rint(x / scale), lo, hi) * scale.
struct FakeQuantParams {
  float scale = 0;  // 0: none
  float lo = 0;     // qmin - zero_point
  float hi = 0;     // qmax - zero_point

  bool active() const { return scale > 0; }
  bool operator==(const FakeQuantParams& o) const {
    return scale == o.scale && lo == o.lo && hi == o.hi;
  }
  bool operator!=(const FakeQuantParams& o) const { return !(*this == o); }
  // Codes of this grid (hi - lo + 1) and the grid's bit width (8 for up to 256 codes).
  int64_t codes() const { return static_cast<int64_t>(hi - lo) + 1; }
  int bits() const;
  std::string describe() const;
};

struct NodePlan {
  // The kernel fake-quantizes its output on this grid (a folded Q -> DQ pair, runtime/qdq_fold.h).
  FakeQuantParams out;
  // A fused SiLU's Sigmoid result, fake-quantized before the multiplication.
  FakeQuantParams inner;
  // Conv + SiLU or Sigmoid * x fused (runtime/fusion.h): the kernel computes x * sigmoid(x).
  bool silu = false;
  // The integer ops of int8 execution (runtime/int8_lowering.h):
  FakeQuantParams in_grid;           // QConv, QBinary: the (first) input's grid
  FakeQuantParams in_grid_b;         // QBinary: the second input's grid
  std::vector<float> weight_scales;  // QConv: one per output channel
  bool codes_out = false;            // QConv, QBinary: writes codes instead of floats
  bool emulate_avx2 = false;         // QConv: saturates in int16 pairs as ORT's AVX2 kernels do
  std::vector<uint8_t> lut_codes;    // QLut: the output code of each input code
  std::vector<float> lut_values;     // QLut: the float value of each input code
  std::vector<int64_t> requant;      // Concat on codes: 256 output codes per input
  std::string binary_op;             // QBinary: Add, Sub, Mul or Div
};

}  // namespace edgeq
