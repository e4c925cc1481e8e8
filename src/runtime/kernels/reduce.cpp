// ReduceMean, ReduceMax and ReduceSum over any axes (attribute before opset 18, a constant input
// from 18; none: every axis, unless noop_with_empty_axes), with keepdims. Sums in double.
#include <algorithm>
#include <limits>
#include <set>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

enum class ReduceOp { kMean, kMax, kSum };

template <ReduceOp op>
class ReduceKernel : public Kernel {
 public:
  explicit ReduceKernel(const KernelInit& init) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(x.dtype == DType::kFloat32, n.describe(), ": input type ", dtype_name(x.dtype),
                " not supported (float32 only)");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = n.attr_ints("axes");
    if (init.opset >= 18 || (op == ReduceOp::kSum && init.opset >= 13))
      axes = init.has_input(1) ? init.constant_ints(1) : std::vector<int64_t>{};
    const bool noop = axes.empty() && n.attr_int("noop_with_empty_axes", 0) != 0;
    std::set<int64_t> reduced;
    for (int64_t a : axes) reduced.insert(normalize_axis(a, rank, n));
    if (axes.empty() && !noop)
      for (int64_t a = 0; a < rank; ++a) reduced.insert(a);
    const bool keep = n.attr_int("keepdims", 1) != 0;
    Shape out;
    in_shape_ = x.shape;
    for (int64_t a = 0; a < rank; ++a) {
      reduced_.push_back(reduced.count(a) != 0);
      if (!reduced_.back())
        out.push_back(x.shape[a]);
      else if (keep)
        out.push_back(1);
    }
    outputs.push_back({x.dtype, out, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
    const int64_t n_out = out[0]->numel(), n_in = in[0]->numel();
    std::vector<double> acc(n_out,
                            op == ReduceOp::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
    // Walk the input in order; its output position drops the reduced coordinates.
    const int64_t rank = static_cast<int64_t>(in_shape_.size());
    std::vector<int64_t> idx(rank, 0), out_stride(rank, 0);
    for (int64_t a = rank - 1, s = 1; a >= 0; --a)
      if (!reduced_[a]) {
        out_stride[a] = s;
        s *= in_shape_[a];
      }
    int64_t o = 0;
    for (int64_t i = 0; i < n_in; ++i) {
      if constexpr (op == ReduceOp::kMax)
        acc[o] = std::max(acc[o], static_cast<double>(x[i]));
      else
        acc[o] += x[i];
      for (int64_t a = rank - 1; a >= 0; --a) {
        o += out_stride[a];
        if (++idx[a] < in_shape_[a]) break;
        o -= out_stride[a] * in_shape_[a];
        idx[a] = 0;
      }
    }
    const double count = n_out ? static_cast<double>(n_in) / n_out : 1;
    for (int64_t k = 0; k < n_out; ++k)
      y[k] = static_cast<float>(op == ReduceOp::kMean ? acc[k] / count : acc[k]);
  }

 private:
  Shape in_shape_;
  std::vector<bool> reduced_;
};

}  // namespace

void register_reduce_kernels() {
  register_kernel("", "ReduceMean", [](const KernelInit& i) {
    return std::make_unique<ReduceKernel<ReduceOp::kMean>>(i);
  });
  register_kernel("", "ReduceMax", [](const KernelInit& i) {
    return std::make_unique<ReduceKernel<ReduceOp::kMax>>(i);
  });
  register_kernel("", "ReduceSum", [](const KernelInit& i) {
    return std::make_unique<ReduceKernel<ReduceOp::kSum>>(i);
  });
}

}  // namespace edgeq
