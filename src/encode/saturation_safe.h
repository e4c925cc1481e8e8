// Saturation-safe weight codes (quantize --saturation-safe): int8 Conv weights chosen so that no
// pair of products x86 int8 kernels add into one int16 can overflow it, under ONNX Runtime's and
// oneDNN's pairing alike (runtime/int8_pairs.h), whatever the u8 activations. Two tools, chosen
// per output channel by the weight error they leave:
//   - lower the codes of an overflowing pair until their magnitudes sum to 128, one unit at a
//     time from the code rounded up the most (only codes in such a pair change);
//   - a coarser grid for the channel (its scale times up to the largest pair sum / 128), which
//     spreads the error over every weight of the channel: where many large weights pair up (the
//     first conv's RGB taps) lowering pairs would cut them by a quarter or more.
// With images, GPTQ (repair/gptq.h) rounds on the chosen grid and clamps a pair's second code,
// compensating the error on the codes not yet rounded.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "encode/weight_encoding.h"

namespace edgeq {

// For each position of one output channel's weights [C/group, kH, kW], the positions it shares an
// int16 with under either library's order (at most two).
std::vector<std::vector<int32_t>> pair_partners(int64_t channels_per_group, int64_t kh, int64_t kw);

// The range of codes position `a` may take given its partners' codes already chosen (`chosen`
// marks them): none of its pairs can overflow. Always contains 0.
struct CodeRange {
  int64_t lo, hi;
};
CodeRange safe_code_range(const std::vector<int32_t>& partners_of_a, const int64_t* codes,
                          const char* chosen, int64_t lo, int64_t hi);

// Makes the codes of `q` (int8 [O, C/group, kH, kW], quantized from the float weight `w` with
// `enc`) saturation-safe in place, nearest to w / scale. Returns how many codes changed.
int64_t make_pairs_safe(Tensor& q, const Tensor& w, const TensorEncoding& enc);

// `enc` (a conv weight's 8-bit per-channel encoding of `w` [O, C/group, kH, kW]) with each
// channel's scale chosen among 1 .. (largest pair sum / 128) times its own, for the least squared
// weight error after make_pairs_safe. Other encodings are returned as they are.
TensorEncoding saturation_safe_encoding(const Tensor& w, const TensorEncoding& enc);

// ONNX Runtime's reduce_range for weights: 8-bit signed storage, codes within [-64, 64] (scale =
// max |w| / 64 per channel, or per tensor), so no two can overflow an int16 pair; other encodings
// are returned as they are.
TensorEncoding reduce_range_encoding(const Tensor& w, const TensorEncoding& enc);

// Whether some pair of `q`'s row `o` (int8 codes) can overflow under either order.
bool row_has_overflowing_pair(const Tensor& q, int64_t o,
                              const std::vector<std::vector<int32_t>>& partners);

}  // namespace edgeq
