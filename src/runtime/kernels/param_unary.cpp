// Elementwise ops with parameters fixed at plan time: Clip (min / max as constant inputs from
// opset 11, attributes before), HardSigmoid (alpha, beta), HardSwish, LeakyRelu (alpha).
//   Clip         y = min(max(x, lo), hi)
//   HardSigmoid  y = max(0, min(1, alpha * x + beta))
//   HardSwish    y = x * max(0, min(1, x / 6 + 1 / 2))
//   LeakyRelu    y = x >= 0 ? x : alpha * x
#include <cmath>
#include <limits>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

enum class ParamOp { kClip, kHardSigmoid, kHardSwish, kLeakyRelu };

template <ParamOp op>
inline float apply(float x, float a, float b) {
  if constexpr (op == ParamOp::kClip) return std::fmin(std::fmax(x, a), b);
  if constexpr (op == ParamOp::kHardSigmoid) return std::fmax(0.f, std::fmin(1.f, a * x + b));
  if constexpr (op == ParamOp::kHardSwish)
    return x * std::fmax(0.f, std::fmin(1.f, x * (1.f / 6) + 0.5f));
  if constexpr (op == ParamOp::kLeakyRelu) return x >= 0 ? x : a * x;
}

template <ParamOp op>
void param_span(const float* x, float* y, int64_t n, float a, float b) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = apply<op>(x[i], a, b);
}

// The scalar of constant input i, or `fallback` when the input is omitted.
float scalar_input(const KernelInit& init, size_t i, float fallback) {
  if (!init.has_input(i)) return fallback;
  const Tensor& t = init.constant(i);
  EDGEQ_CHECK(t.numel() == 1, init.node.describe(), ": input ", i, " must hold one value, not ",
              shape_str(t.shape()));
  return t.to_floats()[0];
}

template <ParamOp op>
class ParamUnaryKernel : public Kernel {
 public:
  explicit ParamUnaryKernel(const KernelInit& init) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(x.dtype == DType::kFloat32, n.describe(), ": input type ", dtype_name(x.dtype),
                " not supported (float32 only)");
    constexpr float inf = std::numeric_limits<float>::infinity();
    if constexpr (op == ParamOp::kClip) {
      a_ = init.opset < 11 ? n.attr_float("min", -inf) : scalar_input(init, 1, -inf);
      b_ = init.opset < 11 ? n.attr_float("max", inf) : scalar_input(init, 2, inf);
    } else if constexpr (op == ParamOp::kHardSigmoid) {
      a_ = n.attr_float("alpha", 0.2f);
      b_ = n.attr_float("beta", 0.5f);
    } else if constexpr (op == ParamOp::kLeakyRelu) {
      a_ = n.attr_float("alpha", 0.01f);
    }
    outputs.push_back({x.dtype, x.shape, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
    for_chunks(in[0]->numel(),
               [&](int64_t s, int64_t e) { param_span<op>(x + s, y + s, e - s, a_, b_); });
  }

 private:
  float a_ = 0, b_ = 0;
};

template <ParamOp op>
void reg(const char* name) {
  register_kernel("", name,
                  [](const KernelInit& i) { return std::make_unique<ParamUnaryKernel<op>>(i); });
}

}  // namespace

void register_param_unary_kernels() {
  reg<ParamOp::kClip>("Clip");
  reg<ParamOp::kHardSigmoid>("HardSigmoid");
  reg<ParamOp::kHardSwish>("HardSwish");
  reg<ParamOp::kLeakyRelu>("LeakyRelu");
}

}  // namespace edgeq
