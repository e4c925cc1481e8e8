// Where x86 int8 convolutions saturate (DESIGN.md lesson 10). Without VNNI, oneDNN's (and ORT's)
// int8 kernels multiply u8 activations by s8 weights and add the products two at a time into a
// saturating int16 (vpmaddubsw): 255 x (w_a + w_b) leaves int16 when two weights of one sign add
// up to 129 or more in magnitude. With VNNI (vpdpbusd) the products go straight into int32.
#pragma once
#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace edgeq {

// Whether oneDNN's int8 convolutions pair products into saturating int16 on this CPU, as capped by
// ONEDNN_MAX_CPU_ISA: true on x86 without AVX-512 VNNI (AVX2 VNNI kernels are not assumed).
bool cpu_int8_pairs_saturate();
// Overrides cpu_int8_pairs_saturate() (tests take either path on any CPU); nullopt restores the
// CPU's answer. Call it while no kernel is being built.
void set_int8_pairs_saturate(std::optional<bool> saturate);

// Whether two weight codes of one sign in `row` add up to 129 or more in magnitude: the pair
// could overflow int16 on a saturating CPU, whichever two products the kernel pairs.
bool weight_pairs_can_overflow(const int8_t* row, int64_t n);
// The same, for any output channel of int8 weights [O, ...].
bool weight_pairs_can_overflow(const Tensor& weights);

// Whether QConv runs int8 weights [O, ...] split in two on this CPU: the CPU's int8 kernels pair
// products into saturating int16 and some pair of the weights could overflow.
bool int8_conv_splits_weights(const Tensor& weights);

// w = first + second with both parts within [-64, 64], so no pair of either part can overflow:
// first = w / 2 rounded toward zero, second = w - first.
inline int8_t split_first(int8_t w) {
  return static_cast<int8_t>(w / 2);
}
inline int8_t split_second(int8_t w) {
  return static_cast<int8_t>(w - w / 2);
}

}  // namespace edgeq
