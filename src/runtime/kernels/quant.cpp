// QuantizeLinear and DequantizeLinear (ONNX, and ORT's com.microsoft contrib ops that allow
// 16-bit types before opset 21), per tensor and per axis, plain layout.
//   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
//                     y type: zero_point's type, else the output_dtype attribute (opset 21),
//                     else uint8; uint8 / int8 / uint16 / int16.
//   DequantizeLinear: y = (x - zero_point) * scale; x uint8 / int8 / uint16 / int16 / int32
//                     (int32 requires zero_point 0).
// Scale and zero point are read at run time, so they need not be constants. A scale of one
// element is per tensor; otherwise it is 1-D with one entry per slice along `axis`.
// Blocked quantization (block_size) is refused.
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

bool is_q_type(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16;
}

// outer x channels x inner view of the data tensor for per-axis parameters.
struct AxisPlan {
  int64_t outer = 1, channels = 1, inner = 1;
};

AxisPlan plan_axis(const KernelInit& init, const Shape& x, const ValueDesc& scale) {
  const Node& node = init.node;
  EDGEQ_CHECK(init.layout == Layout::kPlain, node.describe(),
              ": only the plain layout is supported");
  EDGEQ_CHECK(node.attr_int("block_size", 0) == 0, node.describe(),
              ": blocked quantization (block_size) is not supported");
  EDGEQ_CHECK(scale.dtype == DType::kFloat32, node.describe(), ": scale type ",
              dtype_name(scale.dtype), " not supported (float32 only)");
  AxisPlan p;
  int64_t n = shape_numel(scale.shape);
  if (n == 1) {
    p.inner = shape_numel(x);
    return p;
  }
  EDGEQ_CHECK(scale.shape.size() == 1, node.describe(), ": scale of shape ", shape_str(scale.shape),
              " is neither a scalar nor 1-D");
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalize_axis(node.attr_int("axis", 1), rank, node);
  EDGEQ_CHECK(x[axis] == n, node.describe(), ": ", n, " scales for axis ", axis,
              " of an input of shape ", shape_str(x));
  p.outer = product(x, 0, axis);
  p.channels = n;
  p.inner = product(x, axis + 1, rank);
  return p;
}

void check_zero_point(const KernelInit& init, size_t i, const ValueDesc& scale, DType want) {
  if (!init.has_input(i)) return;
  const ValueDesc& zp = init.in(i);
  EDGEQ_CHECK(shape_numel(zp.shape) == shape_numel(scale.shape), init.node.describe(),
              ": zero point shape ", shape_str(zp.shape), " differs from scale shape ",
              shape_str(scale.shape));
  if (want != DType::kUndefined)
    EDGEQ_CHECK(zp.dtype == want, init.node.describe(), ": zero point type ", dtype_name(zp.dtype),
                " differs from input type ", dtype_name(want));
}

// Zero points as int64 (all zero when the input is omitted).
std::vector<int64_t> zero_points(const Tensor* zp, int64_t n) {
  if (!zp) return std::vector<int64_t>(n, 0);
  std::vector<int64_t> v = zp->to_ints();
  if (static_cast<int64_t>(v.size()) == 1 && n > 1) v.assign(n, v[0]);
  return v;
}

std::vector<float> scales(const Tensor& s, const Node& node) {
  std::vector<float> v(s.data<float>(), s.data<float>() + s.numel());
  for (float x : v)
    EDGEQ_CHECK(std::isfinite(x) && x > 0, node.describe(), ": scale ", x,
                " must be finite and positive");
  return v;
}

template <typename T>
void quantize_slice(const float* x, T* y, int64_t n, float scale, float zp) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  for (int64_t i = 0; i < n; ++i) {
    // rint rounds half to even in the default rounding mode and vectorizes (nearbyint may not).
    float v = std::rint(x[i] / scale) + zp;
    v = v > hi ? hi : v;
    v = v >= lo ? v : lo;  // NaN ends here too
    y[i] = static_cast<T>(v);
  }
}

// Calls f(base, c) for each [inner] slice (start offset, channel) of the outer x channels x
// inner view, in parallel when the tensor is large.
template <typename F>
void for_each_slice(const AxisPlan& p, int64_t numel, F f) {
#pragma omp parallel for collapse(2) if (numel > kParallelNumel)
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t c = 0; c < p.channels; ++c) f((o * p.channels + c) * p.inner, c);
}

// Calls f(T{}) with T the C++ type of a quantized type (uint8 / int8 / uint16 / int16); returns
// false for any other type.
template <typename F>
bool visit_q_type(DType t, F f) {
  return is_q_type(t) && visit_dtype(t, f);
}

class QuantizeLinearKernel : public Kernel {
 public:
  explicit QuantizeLinearKernel(const KernelInit& init) : node_(init.node) {
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(x.dtype == DType::kFloat32, node_.describe(), ": input type ", dtype_name(x.dtype),
                " not supported (float32 only)");
    plan_ = plan_axis(init, x.shape, init.in(1));
    DType out = DType::kUInt8;
    if (init.has_input(2)) {
      out = init.in(2).dtype;
    } else if (int64_t od = node_.attr_int("output_dtype", 0); od != 0) {
      out = dtype_from_onnx(static_cast<int>(od));
    }
    EDGEQ_CHECK(is_q_type(out), node_.describe(), ": output type ", dtype_name(out),
                " not supported (uint8, int8, uint16, int16)");
    check_zero_point(init, 2, init.in(1), DType::kUndefined);
    outputs.push_back({out, x.shape, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    std::vector<float> s = scales(*in[1], node_);
    std::vector<int64_t> zp = zero_points(in.size() > 2 ? in[2] : nullptr, plan_.channels);
    auto run_as = [&](auto tag) { loop<decltype(tag)>(*in[0], *out[0], s, zp); };
    if (!visit_q_type(out[0]->dtype(), run_as)) fail(node_.describe(), ": unexpected output type");
  }

 private:
  template <typename T>
  void loop(const Tensor& x, Tensor& y, const std::vector<float>& s,
            const std::vector<int64_t>& zp) const {
    const float* src = x.data<float>();
    T* dst = y.data<T>();
    const int64_t inner = plan_.inner;
    for_each_slice(plan_, x.numel(), [&](int64_t base, int64_t c) {
      quantize_slice(src + base, dst + base, inner, s[c], static_cast<float>(zp[c]));
    });
  }

  Node node_;
  AxisPlan plan_;
};

class DequantizeLinearKernel : public Kernel {
 public:
  explicit DequantizeLinearKernel(const KernelInit& init) : node_(init.node) {
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(is_q_type(x.dtype) || x.dtype == DType::kInt32, node_.describe(), ": input type ",
                dtype_name(x.dtype), " not supported (uint8, int8, uint16, int16, int32)");
    plan_ = plan_axis(init, x.shape, init.in(1));
    check_zero_point(init, 2, init.in(1), x.dtype);
    outputs.push_back({DType::kFloat32, x.shape, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    std::vector<float> s = scales(*in[1], node_);
    std::vector<int64_t> zp = zero_points(in.size() > 2 ? in[2] : nullptr, plan_.channels);
    auto run_as = [&](auto tag) { loop<decltype(tag)>(*in[0], *out[0], s, zp); };
    if (visit_q_type(in[0]->dtype(), run_as)) return;
    EDGEQ_CHECK(in[0]->dtype() == DType::kInt32, node_.describe(), ": unexpected input type");
    for (int64_t z : zp)
      EDGEQ_CHECK(z == 0, node_.describe(), ": int32 input needs zero point 0, got ", z);
    run_as(int32_t{});
  }

 private:
  template <typename T>
  void loop(const Tensor& x, Tensor& y, const std::vector<float>& s,
            const std::vector<int64_t>& zp) const {
    const T* src = x.data<T>();
    float* dst = y.data<float>();
    const int64_t inner = plan_.inner;
    for_each_slice(plan_, x.numel(), [&](int64_t base, int64_t c) {
      const int32_t z = static_cast<int32_t>(zp[c]);
      const float sc = s[c];
      for (int64_t i = 0; i < inner; ++i)
        dst[base + i] = static_cast<float>(static_cast<int32_t>(src[base + i]) - z) * sc;
    });
  }

  Node node_;
  AxisPlan plan_;
};

}  // namespace

void register_quant_kernels() {
  for (const char* domain : {"", "com.microsoft"}) {
    register_kernel(domain, "QuantizeLinear", [](const KernelInit& init) {
      return std::make_unique<QuantizeLinearKernel>(init);
    });
    register_kernel(domain, "DequantizeLinear", [](const KernelInit& init) {
      return std::make_unique<DequantizeLinearKernel>(init);
    });
  }
}

}  // namespace edgeq
