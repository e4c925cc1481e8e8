// Softmax and LogSoftmax, numerically stable (max subtracted first). Opset >= 13 normalizes
// along one axis; older opsets coerce the input to 2-D at `axis` and normalize each row.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/simd.h"
#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

// Log is a template parameter: a bool read inside the loops blocks vectorization.
// Softmax of x[0, len) into y. The sum of the exponentials keeps 16 partial sums added in a fixed
// order (not an OpenMP simd reduction, whose order follows the vector width), so every SIMD clone
// gives the same bits.
template <bool Log>
EDGEQ_ALWAYS_INLINE void contiguous_body(const float* x, float* y, int64_t len) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < len; ++i) m = x[i] > m ? x[i] : m;
  m += 0.0f;  // -0 -> +0, whichever zero a lane met first
  float part[16] = {};
  int64_t i = 0;
  for (; i + 16 <= len; i += 16) {
#pragma omp simd
    for (int k = 0; k < 16; ++k) {
      const float d = x[i + k] - m;
      const float e = exp_fast(d);
      y[i + k] = Log ? d : e;
      part[k] += e;
    }
  }
  float rest = 0.0f;
  for (; i < len; ++i) {
    const float d = x[i] - m;
    const float e = exp_fast(d);
    y[i] = Log ? d : e;
    rest += e;
  }
  for (int w = 8; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) part[k] += part[k + w];
  const float sum = part[0] + rest;
  // omp simd: at -O2 GCC 12 leaves a loop of unknown length scalar unless told (the attention's
  // 400-wide rows took clearly longer with this loop scalar; measured in docs/status.md, issue 31).
  if (Log) {
    const float ls = std::log(sum);
#pragma omp simd
    for (int64_t j = 0; j < len; ++j) y[j] -= ls;
  } else {
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int64_t j = 0; j < len; ++j) y[j] *= inv;
  }
}
EDGEQ_SIMD_CLONES(template <bool Log>, void, contiguous, contiguous_body<Log>,
                  (const float* x, float* y, int64_t len), (x, y, len))

// Softmax over len elements spaced `inner` apart, for `width` (at most 256) neighbouring columns.
template <bool Log>
EDGEQ_ALWAYS_INLINE void strided_body(const float* x, float* y, int64_t width, int64_t len,
                                      int64_t inner) {
  float m[256], s[256];
  for (int64_t j = 0; j < width; ++j) {
    m[j] = -std::numeric_limits<float>::infinity();
    s[j] = 0.0f;
  }
  for (int64_t a = 0; a < len; ++a) {
    const float* xr = x + a * inner;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) m[j] = std::max(m[j], xr[j]);
  }
  for (int64_t a = 0; a < len; ++a) {
    const float* xr = x + a * inner;
    float* yr = y + a * inner;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) {
      const float d = xr[j] - m[j];
      const float e = exp_fast(d);
      yr[j] = Log ? d : e;
      s[j] += e;
    }
  }
  for (int64_t j = 0; j < width; ++j) s[j] = Log ? std::log(s[j]) : 1.0f / s[j];
  for (int64_t a = 0; a < len; ++a) {
    float* yr = y + a * inner;
    if (Log) {
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) yr[j] -= s[j];
    } else {
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) yr[j] *= s[j];
    }
  }
}
EDGEQ_SIMD_CLONES(template <bool Log>, void, strided, strided_body<Log>,
                  (const float* x, float* y, int64_t width, int64_t len, int64_t inner),
                  (x, y, width, len, inner))

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
      const auto row =
          log_ ? simd_pick(contiguous_avx512<true>, contiguous_avx2<true>, contiguous_scalar<true>)
               : simd_pick(contiguous_avx512<false>, contiguous_avx2<false>,
                           contiguous_scalar<false>);
#pragma omp parallel for if (outer_ * axis_len_ > kParallelNumel)
      for (int64_t o = 0; o < outer_; ++o) row(x + o * axis_len_, y + o * axis_len_, axis_len_);
    } else {
      const auto cols =
          log_ ? simd_pick(strided_avx512<true>, strided_avx2<true>, strided_scalar<true>)
               : simd_pick(strided_avx512<false>, strided_avx2<false>, strided_scalar<false>);
      const int64_t block = 256;
      const int64_t blocks = (inner_ + block - 1) / block;
#pragma omp parallel for collapse(2) if (outer_ * axis_len_ * inner_ > kParallelNumel)
      for (int64_t o = 0; o < outer_; ++o)
        for (int64_t b = 0; b < blocks; ++b) {
          const int64_t j0 = b * block, j1 = std::min(inner_, j0 + block);
          const float* xb = x + o * axis_len_ * inner_ + j0;
          float* yb = y + o * axis_len_ * inner_ + j0;
          cols(xb, yb, j1 - j0, axis_len_, inner_);
        }
    }
  }

 private:
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
