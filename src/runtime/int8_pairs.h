// Where x86 int8 convolutions saturate (docs/lessons.md, lesson 10). Without VNNI, oneDNN's (and
// ORT's) int8 kernels multiply u8 activations by s8 weights and add the products two at a time into
// a saturating int16 (vpmaddubsw): 255 x (w_a + w_b) leaves int16 when two weights of one sign add
// up to 129 or more in magnitude. With VNNI (vpdpbusd) the products go straight into int32.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "edgeq/choices.h"

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

// Whether oneDNN's int8 convolutions at the level it runs (as capped by ONEDNN_MAX_CPU_ISA) are
// known to pair products in PairOrder::kOneDnn: its AVX2 kernels (jit_uni_int8 and
// jit_uni_int8_1x1:avx2, probed by tests/int8_pairing_test.cpp on small probes and on the conv
// shapes of yolo11n-pose). Its other levels' kernels were not probed.
bool onednn_int8_pair_order_known();

// Whether QConv runs int8 conv weights [O, C/group, kH, kW] split in two on this CPU: the CPU's
// int8 kernels pair products into saturating int16 and a pair of the weights could overflow:
// for an ungrouped conv a pair under PairOrder::kOneDnn where onednn_int8_pair_order_known(),
// else any two weights of one sign (oneDNN's AVX2 depthwise int8 kernel is not exact on every
// weight: a 5x5 depthwise conv of 12 channels came out wrong unsplit, tests/int8_exec_test.cpp).
// A saturation-safe file (quantize --saturation-safe) runs its ungrouped convs unsplit on AVX2.
bool int8_conv_splits_weights(const Tensor& weights, int64_t group);
// The output channels whose weights hold such a pair (ascending; empty where QConv runs the conv
// unsplit): only these need the second half's convolution.
std::vector<int64_t> int8_conv_split_channels(const Tensor& weights, int64_t group);

// An order of an ungrouped conv's input channels under which no pair of oneDNN's order
// (PairOrder::kOneDnn: adjacent slots 2j, 2j+1 at one tap) can overflow in any output channel:
// slot s of the rearranged input holds channel order[s]. The conv then runs exact on one fused
// convolution, no channel split (on yolo11n-pose's plain W8A8 file every ungrouped conv but the
// first has one). Channels move only within blocks of `block` slots (even; the input's channels
// [k x block, (k + 1) x block) fill the same slots), so a rearranging copy stays a few shuffles a
// block; with an odd channel count the last slot stays alone, as in oneDNN. nullopt where the
// search finds none (it tries a fixed number of greedy matchings; same answer on every machine).
std::optional<std::vector<int32_t>> int8_conv_channel_order(const Tensor& weights, int64_t block);
// The block QConv's orders keep to: kernels/pad_codes.h moves 32 slots as two shuffles.
constexpr int64_t kInt8ChannelBlock = 32;

// Each input channel beside a slot of nothing (-1: a zero weight; any code): 2C slots, no two
// weights in a pair. For a conv whose channels would nearly all split (the first conv's 3 input
// channels): the same integer work as both halves, in one convolution.
std::vector<int32_t> channels_beside_nothing(int64_t channels);

// How QConv runs an int8 conv's weights [O, C/group, kH, kW] in NHWC on this CPU: where channels
// would split, an ungrouped conv whose pairing is known (onednn_int8_pair_order_known) takes an
// order of its input channels (int8_conv_channel_order, blocks of kInt8ChannelBlock), or, where
// more than half its output channels would split, no order exists and it has at most 16 input
// channels, channels_beside_nothing.
struct Int8ConvPlan {
  std::vector<int32_t> channel_order;   // slot -> input channel (-1: nothing); empty: as they are
  std::vector<int64_t> split_channels;  // the output channels that still split (in that order)
};
Int8ConvPlan plan_int8_conv(const Tensor& weights, int64_t group);

// Weights [O, C, kH, kW] with their input channels in `order` (slot s: channel order[s], or zeros
// where order[s] is -1): [O, order.size(), kH, kW].
Tensor weights_in_channel_order(const Tensor& weights, const std::vector<int32_t>& order);

// w = first + second with both parts within [-64, 64], so no pair of either part can overflow:
// first = w / 2 rounded toward zero, second = w - first.
inline int8_t split_first(int8_t w) {
  return static_cast<int8_t>(w / 2);
}
inline int8_t split_second(int8_t w) {
  return static_cast<int8_t>(w - w / 2);
}

// Which two products of a convolution a library adds into one int16, on a CPU without VNNI. Both
// reduce over one group's weights [C/group, kH, kW] of an output channel; a depthwise conv
// (C/group = 1) widens its products to int32 in both, so it has no pairs. Found by probing each
// library with weights that overflow in exactly one pair (tests/int8_pairing_test.cpp):
//   kOnnxRuntime: MLAS's im2col order, channels innermost ((kH, kW, C) flattened), products
//                 (2j, 2j+1) of that order: adjacent channels at one tap, but with an odd C a
//                 pair spans two taps (the first conv's C = 3);
//   kOneDnn:      adjacent channels (2j, 2j+1) at the same tap; an odd C leaves the last alone.
enum class PairOrder { kOnnxRuntime, kOneDnn };
const char* pair_order_name(PairOrder order);  // "ONNX Runtime" | "oneDNN"

// A pair of positions in one output channel's weights [C/group, kH, kW], as flat indices
// c * kH * kW + y * kW + x (the ONNX weight layout).
using WeightPair = std::pair<int32_t, int32_t>;
std::vector<WeightPair> conv_weight_pairs(int64_t channels_per_group, int64_t kh, int64_t kw,
                                          PairOrder order);

// A conv's pairs under one library's order, and those whose two weights could overflow.
struct PairCount {
  int64_t pairs = 0, can_overflow = 0;
};
// `weights`: int8 codes [O, C/group, kH, kW].
PairCount count_weight_pairs(const Tensor& weights, PairOrder order);

// Whether the products of two weight codes with u8 activations can leave int16 (some activations
// in 0..255 make 255 x (a + b) > 32767 or < -32768).
inline bool pair_can_overflow(int a, int b) {
  return (a > 0 && b > 0 && a + b >= 129) || (a < 0 && b < 0 && a + b <= -129);
}
// What vpmaddubsw keeps of a pair's sum.
inline int32_t saturate_int16(int32_t v) {
  return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

// (edgeq::Int8Emulation: edgeq/choices.h; parse<Int8Emulation>() / name())

}  // namespace edgeq
