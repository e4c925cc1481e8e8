// A convolution's input codes with its padding written out: QConv (qconv.cpp) runs its padded
// convolutions on such a copy, the padding filled with the input's zero-point code, so that the
// zero point folds into the bias and oneDNN runs its kernels without zero-point compensation
// (about a tenth faster on the 3x3 convs of yolo11n-pose at AVX2; issue 49). The same copy can
// rearrange an NHWC input's channels (ChannelArrangement), for the channel orders of
// int8_pairs.h under which no pair of weights overflows.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/kernels/conv_common.h"

namespace edgeq {

// Whether `g` pads its input on any side.
bool conv_pads(const ConvGeometry& g);

// `g` with its padding written into the input: input dims grown by the pads, pads 0.
ConvGeometry padded_input_geometry(const ConvGeometry& g);

// The codes x [N, C, H, W] of `g`'s input, in `layout` (NHWC or plain), into dst, laid out the
// same way with the input dims of padded_input_geometry(g): x inside, `code` in the padding.
void pad_codes(const uint8_t* x, const ConvGeometry& g, Layout layout, uint8_t code, uint8_t* dst);

// A pixel's channels rearranged into slots: slot s holds channel order[s], or a code of no
// channel where order[s] is -1. At AVX2 and above (core/simd.h) blocks of 32 slots that read only
// their own channels (a last, shorter one too) move as two shuffles and a blend, and pixels of
// at most 16 channels and 32 slots several at a time in one shuffle; other slots one byte at a
// time.
class ChannelArrangement {
 public:
  ChannelArrangement(std::vector<int32_t> order, int64_t channels);
  int64_t channels() const { return channels_; }
  int64_t slots() const { return static_cast<int64_t>(order_.size()); }
  const std::vector<int32_t>& order() const { return order_; }
  // n pixels of `channels()` codes each into n x slots() bytes, `code` in the slots of no channel.
  void pixels(const uint8_t* x, int64_t n, uint8_t code, uint8_t* dst) const;

 private:
  std::vector<int32_t> order_;
  int64_t channels_ = 0;
  int64_t shuffled_blocks_ = 0;  // leading blocks of 32 slots that shuffle
  bool tail_ = false;            // and a last, shorter block after them
  int64_t per_step_ = 0;         // small pixels: how many a shuffle (0: blocks instead)
  // Per shuffled block (tail included): 32 indices within a lane and 32 selects (0x80: the high
  // 16 channels); small pixels: the step's 32 indices into 16 bytes (0x80: nothing).
  std::vector<uint8_t> index_, high_;
};

// pad_codes of an NHWC input with its channels arranged: dst [N, H', W', a.slots()], H' and W'
// those of padded_input_geometry(g) where `pad`, else g's input's, `code` in the padding.
void arrange_codes(const uint8_t* x, const ConvGeometry& g, const ChannelArrangement& a, bool pad,
                   uint8_t code, uint8_t* dst);

}  // namespace edgeq
