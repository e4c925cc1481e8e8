// Softmax and LogSoftmax, numerically stable (max subtracted first). Opset >= 13 normalizes
// along one axis; older opsets coerce the input to 2-D at `axis` and normalize each row.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(const KernelInit& init, bool log) : log_(log) {
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(x.dtype == DType::kFloat32, init.node.describe(), ": input type ",
                dtype_name(x.dtype), " not supported");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) {
      outer_ = axis_len_ = inner_ = 1;
    } else if (init.opset >= 13) {
      const int64_t axis = normalize_axis(init.node.attr_int("axis", -1), rank, init.node);
      outer_ = product(x.shape, 0, axis);
      axis_len_ = x.shape[axis];
      inner_ = product(x.shape, axis + 1, rank);
    } else {
      int64_t axis = init.node.attr_int("axis", 1);
      if (axis < 0) axis += rank;
      EDGEQ_CHECK(axis >= 0 && axis <= rank, init.node.describe(), ": axis out of range");
      outer_ = product(x.shape, 0, axis);
      axis_len_ = product(x.shape, axis, rank);
      inner_ = 1;
    }
    outputs.push_back({x.dtype, x.shape, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
    if (outer_ * axis_len_ * inner_ == 0) return;
    if (inner_ == 1) {
#pragma omp parallel for if (outer_ * axis_len_ > kParallelNumel)
      for (int64_t o = 0; o < outer_; ++o)
        log_ ? contiguous<true>(x + o * axis_len_, y + o * axis_len_)
             : contiguous<false>(x + o * axis_len_, y + o * axis_len_);
    } else {
      const int64_t block = 256;
      const int64_t blocks = (inner_ + block - 1) / block;
#pragma omp parallel for collapse(2) if (outer_ * axis_len_ * inner_ > kParallelNumel)
      for (int64_t o = 0; o < outer_; ++o)
        for (int64_t b = 0; b < blocks; ++b) {
          const int64_t j0 = b * block, j1 = std::min(inner_, j0 + block);
          const float* xb = x + o * axis_len_ * inner_ + j0;
          float* yb = y + o * axis_len_ * inner_ + j0;
          log_ ? strided<true>(xb, yb, j1 - j0) : strided<false>(xb, yb, j1 - j0);
        }
    }
  }

 private:
  // Log is a template parameter: a bool member read inside the loops blocks vectorization.
  template <bool Log>
  void contiguous(const float* x, float* y) const {
    float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < axis_len_; ++i) m = x[i] > m ? x[i] : m;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < axis_len_; ++i) {
      const float d = x[i] - m;
      const float e = exp_fast(d);
      y[i] = Log ? d : e;
      sum += e;
    }
    if (Log) {
      const float ls = std::log(sum);
      for (int64_t i = 0; i < axis_len_; ++i) y[i] -= ls;
    } else {
      const float inv = 1.0f / sum;
      for (int64_t i = 0; i < axis_len_; ++i) y[i] *= inv;
    }
  }

  // Softmax over axis_len_ elements spaced inner_ apart, for `width` neighbouring columns.
  template <bool Log>
  void strided(const float* x, float* y, int64_t width) const {
    float m[256], s[256];
    for (int64_t j = 0; j < width; ++j) {
      m[j] = -std::numeric_limits<float>::infinity();
      s[j] = 0.0f;
    }
    for (int64_t a = 0; a < axis_len_; ++a) {
      const float* xr = x + a * inner_;
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) m[j] = std::max(m[j], xr[j]);
    }
    for (int64_t a = 0; a < axis_len_; ++a) {
      const float* xr = x + a * inner_;
      float* yr = y + a * inner_;
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) {
        const float d = xr[j] - m[j];
        const float e = exp_fast(d);
        yr[j] = Log ? d : e;
        s[j] += e;
      }
    }
    for (int64_t j = 0; j < width; ++j) s[j] = Log ? std::log(s[j]) : 1.0f / s[j];
    for (int64_t a = 0; a < axis_len_; ++a) {
      float* yr = y + a * inner_;
      if (Log) {
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) yr[j] -= s[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) yr[j] *= s[j];
      }
    }
  }

  bool log_;
  int64_t outer_ = 1, axis_len_ = 1, inner_ = 1;
};

}  // namespace

void register_softmax_kernels() {
  register_kernel("", "Softmax",
                  [](const KernelInit& i) { return std::make_unique<SoftmaxKernel>(i, false); });
  register_kernel("", "LogSoftmax",
                  [](const KernelInit& i) { return std::make_unique<SoftmaxKernel>(i, true); });
}

}  // namespace edgeq
