// Tensor-level error of a test tensor against a reference, accumulated over many runs:
// relative L2 ||t - r|| / ||r||, cosine similarity and max |t - r| over all elements seen.
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace edgeq {

struct TensorError {
  double rel_l2 = 0;
  double cosine = 1;
  double max_abs = 0;
  int64_t elements = 0;
};

class TensorErrorAccumulator {
 public:
  // Both float32 with the same shape; `what` names the tensor in errors.
  void add(const Tensor& ref, const Tensor& test, const std::string& what = "tensor");
  TensorError result() const;

 private:
  double diff2_ = 0, ref2_ = 0, test2_ = 0, dot_ = 0, max_abs_ = 0;
  int64_t n_ = 0;
};

}  // namespace edgeq
