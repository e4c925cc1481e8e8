// Per-channel moments of an output over many images, for the board check: a board's raw output
// dumps (compare's test outputs) beside FP32's, channel by channel (axis 1: [1, C, ...]). A
// channel block that a board's compiler reordered, rescaled or gave the wrong encoding shows here
// before any detection does.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace edgeq {

struct ChannelMoments {
  double mean = 0, var = 0, min = 0, max = 0;
};

class ChannelStatsAccumulator {
 public:
  // A float32 tensor of rank >= 2 whose axis 1 holds the channels; every call the same shape.
  void add(const Tensor& t);
  std::vector<ChannelMoments> result() const;

 private:
  std::vector<double> sum_, sum2_, min_, max_;
  int64_t per_channel_ = 0;  // elements per channel, over all calls
};

// A channel diverges when the test's mean moves by more than a quarter of the reference's
// standard deviation (plus 1e-6 of its magnitude), or its standard deviation is outside half to
// twice the reference's.
bool channel_diverges(const ChannelMoments& ref, const ChannelMoments& test);

// The first run of consecutive diverging channels, [first, last]; {-1, -1} when none diverges.
struct ChannelBlock {
  int first = -1, last = -1;
};
ChannelBlock first_diverging_block(const std::vector<ChannelMoments>& ref,
                                   const std::vector<ChannelMoments>& test);

}  // namespace edgeq
