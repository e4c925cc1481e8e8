// Weight encodings of the real yolo11n-pose, whose conv weights come from an int8 export: a
// channel whose max-abs grid is exact keeps it, a channel that leaves max-abs comes back exactly,
// and the DFL conv's 0..15 get scale 1. Prints how many channels change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "encode/exact_encoding.h"
#include "encode/weight_encoding.h"
#include "ir/constants.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {

TEST(QuantExactWeightsReal, ChannelsLeaveMaxAbsOnlyForAnExactGrid) {
  EDGEQ_REQUIRE_REAL_DATA();
  Graph g = load_onnx(test::real_model_path());
  size_t channels = 0, maxabs_exact = 0, moved = 0, lossy = 0, tensors_moved = 0;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Conv") continue;
    const Tensor* w = find_constant(g, n.inputs.at(1));
    ASSERT_NE(w, nullptr) << n.name;
    TensorEncoding te = weight_encoding(*w, true, 0, 8, n.name);
    bool any = false;
    for (int64_t c = 0; c < w->dim(0); ++c) {
      std::vector<float> v = channel_values(*w, 0, c);
      double m = 0;
      for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
      const Encoding maxabs = encoding_from_range(-m, m, 8, true);
      const Encoding& chosen = te.channels.at(c);
      const bool exact = round_trips(chosen, v.data(), v.size());
      ++channels;
      if (round_trips(maxabs, v.data(), v.size())) {
        ++maxabs_exact;
        EXPECT_EQ(chosen.scale, maxabs.scale) << n.name << " channel " << c;
      } else if (chosen.scale != maxabs.scale) {
        ++moved;
        any = true;
        EXPECT_TRUE(exact) << n.name << " channel " << c << " left max-abs for a lossy grid";
      } else {
        ++lossy;
      }
    }
    tensors_moved += any;
  }
  std::printf(
      "conv weight channels: %zu; max-abs exact (kept) %zu; moved onto an exact grid %zu (in %zu "
      "tensors); max-abs, no exact grid %zu\n",
      channels, maxabs_exact, moved, tensors_moved, lossy);
  EXPECT_GT(moved, 0u);
  TensorEncoding dfl = weight_encoding(*find_constant(g, "model.23.dfl.conv.weight"), true, 0, 8,
                                       "model.23.dfl.conv.weight");
  EXPECT_EQ(dfl.channels.at(0).scale, 1.0f);
}

}  // namespace edgeq
