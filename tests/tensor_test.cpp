#include "core/tensor.h"

#include <gtest/gtest.h>

#include "core/npy.h"

namespace edgeq {

// Regression: a default Tensor has an empty shape (numel 1 by the product rule) and used to
// report empty() == false, which made bias-less Conv read a null bias.
TEST(Tensor, DefaultIsEmptyAndScalarIsNot) {
  Tensor none;
  EXPECT_TRUE(none.empty());
  Tensor s = Tensor::scalar<float>(2.5f);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.data<float>()[0], 2.5f);
}

TEST(Tensor, ReshapeSharesStorageAndChecksCount) {
  Tensor t = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.raw(), t.raw());
  EXPECT_THROW(t.reshaped({4, 2}), std::exception);
}

TEST(Npy, RoundTripKeepsShapeTypeAndBytes) {
  for (Shape shape : {Shape{}, Shape{5}, Shape{2, 3, 4}}) {
    Tensor t(DType::kFloat32, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.25f * i - 1;
    Tensor back = parse_npy(serialize_npy(t), "t");
    ASSERT_EQ(back.shape(), shape);
    for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(back.data<float>()[i], t.data<float>()[i]);
  }
  Tensor i64 = Tensor::from_vector<int64_t>({3}, {-1, 0, 7});
  EXPECT_EQ(parse_npy(serialize_npy(i64), "t").to_ints(), (std::vector<int64_t>{-1, 0, 7}));
}

TEST(Npy, RejectsTruncatedAndForeignFiles) {
  Tensor t(DType::kFloat32, {4, 4});
  std::string bytes = serialize_npy(t);
  EXPECT_THROW(parse_npy(bytes.substr(0, bytes.size() - 3), "t"), std::exception);
  EXPECT_THROW(parse_npy("hello world, not numpy", "t"), std::exception);
}

}  // namespace edgeq
