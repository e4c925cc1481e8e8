// Integer execution (--exec int8): the planning pass that stores a QDQ model's 8-bit activations
// as uint8 codes and runs the ops around them on codes. It works on the runtime graph after QDQ
// folding and fusion (runtime/qdq_fold.h), where every quantization point is a FakeQuant node or
// a kernel's fake-quant attribute:
//   - Conv reading codes with int8 weights (the DequantizeLinear of an int8 initializer in the
//     source graph) and an int32 bias: QConv on oneDNN u8 x s8 -> s32, requantized to codes, or to
//     float for a 16-bit output (kernels/qconv.cpp);
//   - an elementwise op reading codes (Sigmoid, the fused SiLU with its inner step, a FakeQuant
//     that re-encodes): a table made by running the float op on every code (QLut,
//     kernels/codes.cpp); Add / Mul / Sub / Div of two coded operands of one shape: QBinary,
//     the float arithmetic on the codes' values; both match the simulation bit for bit;
//   - Concat of codes: copies, with a per-input table where an input's grid differs;
//   - ops that only move values (Reshape, Split, Slice, Transpose, MaxPool, nearest Resize): on
//     the codes themselves;
//   - anything else runs in float on Dequantize'd inputs, and its output is Quantize'd when it
//     is an 8-bit value (16-bit segments such as the decode tail stay float).
// Graph outputs and watched values stay float.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/int8_pairs.h"
#include "runtime/kernel.h"

namespace edgeq {

struct Int8Plan {
  size_t coded_values = 0;  // activations stored as codes
  size_t integer_ops = 0;   // nodes running on codes
  size_t qconvs = 0;        // convolutions on codes
  size_t split_qconvs = 0;  // ... of them on split weights (runtime/int8_pairs.h)
  // ... of them in an order of their input channels instead (plan_int8_conv), and those of
  // them with each channel beside nothing.
  size_t ordered_qconvs = 0, spread_qconvs = 0;
  // Output channels of those convolutions, and of them the ones whose weights split.
  size_t split_conv_channels = 0, split_channels = 0;
  // --emulate avx2: convolutions with a pair of weights that can saturate ORT's int16 pairs.
  size_t saturating_qconvs = 0;
  // One line per op type that reads or writes 8-bit values but runs in float (no int8 kernel).
  std::vector<std::string> float_ops;
};

// Rewrites `g` (the runtime graph) in place and records new values' types and shapes in `descs`.
// `source` is the topologically sorted model (its DequantizeLinear nodes give the weights' codes).
// Throws when the model has no 8-bit activation. `emulate`: whose integer arithmetic QConv
// reproduces (kNone: the exact sums).
Int8Plan lower_to_int8(Graph& g, ValueDescs& descs, const Graph& source,
                       const std::set<std::string>& protect,
                       Int8Emulation emulate = Int8Emulation::kNone);

}  // namespace edgeq
