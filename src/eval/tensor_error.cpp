#include "eval/tensor_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace edgeq {

void TensorErrorAccumulator::add(const Tensor& ref, const Tensor& test, const std::string& what) {
  EDGEQ_CHECK(ref.dtype() == DType::kFloat32 && test.dtype() == DType::kFloat32, what,
              ": only float32 tensors can be compared");
  EDGEQ_CHECK(ref.shape() == test.shape(), what, ": reference is ", shape_str(ref.shape()),
              " but test is ", shape_str(test.shape()));
  const float* r = ref.data<float>();
  const float* t = test.data<float>();
  double d2 = 0, r2 = 0, t2 = 0, rt = 0, mx = max_abs_;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double a = r[i], b = t[i], d = b - a;
    d2 += d * d;
    r2 += a * a;
    t2 += b * b;
    rt += a * b;
    mx = std::max(mx, std::fabs(d));
  }
  diff2_ += d2;
  ref2_ += r2;
  test2_ += t2;
  dot_ += rt;
  max_abs_ = mx;
  n_ += ref.numel();
}

TensorError TensorErrorAccumulator::result() const {
  TensorError e;
  e.elements = n_;
  e.max_abs = max_abs_;
  if (ref2_ > 0)
    e.rel_l2 = std::sqrt(diff2_ / ref2_);
  else
    e.rel_l2 = diff2_ > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  if (ref2_ > 0 && test2_ > 0)
    e.cosine = dot_ / std::sqrt(ref2_ * test2_);
  else
    e.cosine = (ref2_ == 0 && test2_ == 0) ? 1.0 : 0.0;
  return e;
}

}  // namespace edgeq
