// GlobalMaxPool on uint8 codes (--exec int8 keeps a tap's GlobalMaxPool on codes: it only picks
// a value), against a plain reference. Regression: `edgeq study` benchmarking a W8A8 arm A with
// --exec int8 failed with "needs a float32 input".
#include <gtest/gtest.h>

#include <random>

#include "runtime/executor.h"

namespace edgeq {
namespace {

TEST(GlobalMaxPoolCodes, MaxOfEachPlane) {
  Tensor x(DType::kUInt8, {2, 3, 5, 7});
  std::mt19937 rng(3);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = rng() % 200;
  x.data<uint8_t>()[4 * 35 + 17] = 255;  // plane 4 holds the largest code
  Graph g;
  g.inputs = {{"x", DType::kUInt8, x.shape()}};
  g.outputs = {{"y", DType::kUInt8, {}}};
  g.nodes.push_back({"pool", "GlobalMaxPool", "", {"x"}, {"y"}, {}});
  Executor ex(g);
  const Tensor y = ex.run({{"x", x}}).at("y");
  ASSERT_EQ(y.shape(), (Shape{2, 3, 1, 1}));
  for (int64_t p = 0; p < 6; ++p) {
    uint8_t m = 0;
    for (int64_t i = 0; i < 35; ++i) m = std::max(m, x.data<uint8_t>()[p * 35 + i]);
    EXPECT_EQ(y.data<uint8_t>()[p], m) << "plane " << p;
  }
  EXPECT_EQ(y.data<uint8_t>()[4], 255);
}

}  // namespace
}  // namespace edgeq
