// Elementwise operators: unary math (Sigmoid, Relu, ...) and binary arithmetic with NumPy
// broadcasting (Add, Sub, Mul, Div, Pow). Same-shape and scalar operands take contiguous loops
// the compiler vectorizes; everything else goes through a collapsed broadcast plan.
#include <cmath>
#include <type_traits>

#include "core/simd.h"
#include "runtime/fake_quant.h"
#include "runtime/fusion.h"
#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/silu_fake_quant.h"

namespace edgeq {
namespace {

// What an elementwise loop does with each chunk of output [s, e) right after computing it, while
// it is in cache: the output's fake-quant step (runtime/fake_quant.h), then the observers of the
// operands it read in order (element i at i).
template <typename T>
struct AfterChunk {
  T* out = nullptr;
  FakeQuantParams fq;
  const Kernel::InputObserver* observer[2] = {nullptr, nullptr};
  const T* values[2] = {nullptr, nullptr};
  void operator()(int64_t s, int64_t e) const {
    if constexpr (std::is_same_v<T, float>) {
      if (fq.active()) fake_quant_span(out + s, out + s, e - s, fq);
      for (int k = 0; k < 2; ++k)
        if (observer[k]) (*observer[k])(values[k] + s, e - s);
    }
  }
};

// ---- unary -------------------------------------------------------------------------------

// kSilu: x * sigmoid(x), a Sigmoid node that absorbed Mul(x, Sigmoid(x)) (runtime/fusion.h).
enum class UnaryOp { kSigmoid, kSilu, kRelu, kTanh, kExp, kSqrt, kNeg, kAbs };

template <UnaryOp op, typename T>
inline T apply_unary(T x) {
  if constexpr (op == UnaryOp::kSigmoid) return sigmoid_fast(x);
  if constexpr (op == UnaryOp::kSilu) return silu_fast(x);
  if constexpr (op == UnaryOp::kRelu) return x > T(0) ? x : T(0);
  if constexpr (op == UnaryOp::kTanh) return std::tanh(x);
  if constexpr (op == UnaryOp::kExp) return exp_fast(x);
  if constexpr (op == UnaryOp::kSqrt) return std::sqrt(x);
  if constexpr (op == UnaryOp::kNeg) return -x;
  if constexpr (op == UnaryOp::kAbs) return x < T(0) ? -x : x;
}

template <UnaryOp op, typename T>
EDGEQ_ALWAYS_INLINE void unary_body(const T* x, T* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = apply_unary<op, T>(x[i]);
}
// Float spans in AVX-512 / AVX2 / baseline clones (core/simd.h): the exp-heavy ones gain most.
EDGEQ_SIMD_CLONES(template <UnaryOp op>, void, unary_span, unary_body<op>,
                  (const float* x, float* y, int64_t n), (x, y, n))

template <UnaryOp op, typename T>
void unary_loop(const T* x, T* y, int64_t n, const AfterChunk<T>& after = {}) {
  if constexpr (std::is_same_v<T, float>) {
    const auto span = simd_pick(unary_span_avx512<op>, unary_span_avx2<op>, unary_span_scalar<op>);
    for_chunks(n, [&](int64_t b, int64_t e) {
      span(x + b, y + b, e - b);
      after(b, e);
    });
  } else {
    for_chunks(n, [&](int64_t b, int64_t e) {
      unary_body<op, T>(x + b, y + b, e - b);
      after(b, e);
    });
  }
}

// SiLU, of a QDQ graph (Mul(x, DQ(Q(Sigmoid(x)))): the sigmoid fake-quantized before the
// multiplication) or not (`inner` inactive); the output's own step is taken in the same pass
// (silu_fake_quant.h), so the chunk's `after` only feeds the observers.
void silu_loop(const float* x, float* y, int64_t n, const FakeQuantParams& inner,
               AfterChunk<float> after) {
  const FakeQuantParams outer = after.fq;
  after.fq = {};
  for_chunks(n, [&](int64_t b, int64_t e) {
    silu_fake_quant_span(x + b, y + b, e - b, inner, outer);
    after(b, e);
  });
}

template <UnaryOp op>
class UnaryKernel : public Kernel {
 public:
  explicit UnaryKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    bool int_ok = op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kRelu;
    EDGEQ_CHECK(x.dtype == DType::kFloat32 ||
                    (int_ok && (x.dtype == DType::kInt64 || x.dtype == DType::kInt32)),
                init.node.describe(), ": input type ", dtype_name(x.dtype), " not supported");
    float_input_ = x.dtype == DType::kFloat32;
    outputs.push_back({x.dtype, x.shape, nullptr});
    if (op == UnaryOp::kSigmoid || op == UnaryOp::kSilu) {
      out_fq_ = init.node.plan.out;
      applies_fake_quant = true;
    }
    if (op == UnaryOp::kSilu) inner_fq_ = init.node.plan.inner;
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    switch (x.dtype()) {
      case DType::kFloat32: {
        AfterChunk<float> after{y.data<float>(), out_fq_, {&observer_}, {x.data<float>()}};
        if (!observer_) after.observer[0] = nullptr;
        if (op == UnaryOp::kSilu)
          return silu_loop(x.data<float>(), y.data<float>(), x.numel(), inner_fq_, after);
        return unary_loop<op>(x.data<float>(), y.data<float>(), x.numel(), after);
      }
      case DType::kInt64:
        if constexpr (op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kRelu)
          return unary_loop<op>(x.data<int64_t>(), y.data<int64_t>(), x.numel());
        break;
      case DType::kInt32:
        if constexpr (op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kRelu)
          return unary_loop<op>(x.data<int32_t>(), y.data<int32_t>(), x.numel());
        break;
      default:
        break;
    }
    fail("unary kernel: unexpected input type ", dtype_name(x.dtype()));
  }
  bool observe_input(size_t input, InputObserver fn) override {
    if (input != 0 || !float_input_) return false;
    observer_ = std::move(fn);
    return true;
  }

 private:
  bool float_input_ = false;
  InputObserver observer_;
  FakeQuantParams out_fq_, inner_fq_;
};

// FakeQuant (domain "edgeq"): a folded QuantizeLinear -> DequantizeLinear pair
// (runtime/qdq_fold.h), as one pass.
class FakeQuantKernel : public Kernel {
 public:
  explicit FakeQuantKernel(const KernelInit& init) : fq_((init.node).plan.out) {
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(x.dtype == DType::kFloat32 && fq_.active(), init.node.describe(),
                ": needs a float32 input and its fake-quant parameters");
    outputs.push_back({x.dtype, x.shape, nullptr});
    applies_fake_quant = true;
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
    for_chunks(in[0]->numel(), [&](int64_t b, int64_t e) {
      fake_quant_span(x + b, y + b, e - b, fq_);
      if (observer_) observer_(x + b, e - b);
    });
  }
  bool observe_input(size_t input, InputObserver fn) override {
    if (input != 0) return false;
    observer_ = std::move(fn);
    return true;
  }

 private:
  FakeQuantParams fq_;
  InputObserver observer_;
};

// ---- binary ------------------------------------------------------------------------------

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPow };

template <BinaryOp op, typename T>
inline T apply_binary(T a, T b) {
  if constexpr (op == BinaryOp::kAdd) return a + b;
  if constexpr (op == BinaryOp::kSub) return a - b;
  if constexpr (op == BinaryOp::kMul) return a * b;
  if constexpr (op == BinaryOp::kDiv) return a / b;
  if constexpr (op == BinaryOp::kPow) return static_cast<T>(std::pow(a, b));
}

// Broadcast plan: the output shape collapsed so that neighbouring dims with the same
// broadcast pattern merge; strides are 0 where an operand is broadcast.
struct BroadcastPlan {
  Shape dims;
  std::vector<int64_t> a_strides, b_strides;
};

BroadcastPlan make_plan(const Shape& a, const Shape& b, const Shape& out) {
  const size_t r = out.size();
  auto dim_of = [&](const Shape& s, size_t i) {
    return i < r - s.size() ? 1 : s[i - (r - s.size())];
  };
  Shape dims;
  std::vector<bool> a_bc, b_bc;
  for (size_t i = 0; i < r; ++i) {
    if (out[i] == 1) continue;
    bool ab = dim_of(a, i) == 1, bb = dim_of(b, i) == 1;
    if (!dims.empty() && a_bc.back() == ab && b_bc.back() == bb) {
      dims.back() *= out[i];
    } else {
      dims.push_back(out[i]);
      a_bc.push_back(ab);
      b_bc.push_back(bb);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    a_bc.push_back(false);
    b_bc.push_back(false);
  }
  BroadcastPlan p;
  p.dims = dims;
  p.a_strides.assign(dims.size(), 0);
  p.b_strides.assign(dims.size(), 0);
  int64_t sa = 1, sb = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    if (!a_bc[i]) {
      p.a_strides[i] = sa;
      sa *= dims[i];
    }
    if (!b_bc[i]) {
      p.b_strides[i] = sb;
      sb *= dims[i];
    }
  }
  return p;
}

template <BinaryOp op, typename T>
void binary_same(const T* a, const T* b, T* y, int64_t n, const AfterChunk<T>& after) {
  for_chunks(n, [&](int64_t s, int64_t e) {
#pragma omp simd
    for (int64_t i = s; i < e; ++i) y[i] = apply_binary<op, T>(a[i], b[i]);
    after(s, e);
  });
}

template <BinaryOp op, typename T>
void binary_scalar_b(const T* a, T b, T* y, int64_t n, const AfterChunk<T>& after) {
  if constexpr (op == BinaryOp::kPow) {
    if (b == T(2)) {
      for_chunks(n, [&](int64_t s, int64_t e) {
#pragma omp simd
        for (int64_t i = s; i < e; ++i) y[i] = a[i] * a[i];
        after(s, e);
      });
      return;
    }
  }
  for_chunks(n, [&](int64_t s, int64_t e) {
#pragma omp simd
    for (int64_t i = s; i < e; ++i) y[i] = apply_binary<op, T>(a[i], b);
    after(s, e);
  });
}

template <BinaryOp op, typename T>
void binary_scalar_a(T a, const T* b, T* y, int64_t n, const AfterChunk<T>& after) {
  for_chunks(n, [&](int64_t s, int64_t e) {
#pragma omp simd
    for (int64_t i = s; i < e; ++i) y[i] = apply_binary<op, T>(a, b[i]);
    after(s, e);
  });
}

// Rows of the collapsed output (its last dim), in blocks of about kChunk values.
template <BinaryOp op, typename T>
void binary_broadcast(const T* a, const T* b, T* y, const BroadcastPlan& p,
                      const AfterChunk<T>& after) {
  const int rank = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[rank - 1];
  const int64_t ia = p.a_strides[rank - 1], ib = p.b_strides[rank - 1];
  const int64_t outer = product(p.dims, 0, rank - 1);
  const std::vector<int64_t> ostr = contiguous_strides(Shape(p.dims.begin(), p.dims.end() - 1));
  const int64_t rows = std::max<int64_t>(1, kChunk / std::max<int64_t>(inner, 1));
  const int64_t blocks = (outer + rows - 1) / rows;
#pragma omp parallel for if (outer * inner > kParallelNumel)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * rows, o1 = std::min(outer, o0 + rows);
    for (int64_t o = o0; o < o1; ++o) {
      int64_t rem = o, oa = 0, ob = 0;
      for (int d = 0; d < rank - 1; ++d) {
        int64_t idx = rem / ostr[d];
        rem -= idx * ostr[d];
        oa += idx * p.a_strides[d];
        ob += idx * p.b_strides[d];
      }
      const T* pa = a + oa;
      const T* pb = b + ob;
      T* py = y + o * inner;
      if (ia && ib) {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) py[i] = apply_binary<op, T>(pa[i], pb[i]);
      } else if (ia) {
        const T vb = pb[0];
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) py[i] = apply_binary<op, T>(pa[i], vb);
      } else {
        const T va = pa[0];
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) py[i] = apply_binary<op, T>(va, pb[i]);
      }
    }
    after(o0 * inner, o1 * inner);
  }
}

template <BinaryOp op>
class BinaryKernel : public Kernel {
 public:
  explicit BinaryKernel(const KernelInit& init) : node_(init.node.describe()) {
    const ValueDesc& a = init.in(0);
    const ValueDesc& b = init.in(1);
    if (op == BinaryOp::kPow) {
      EDGEQ_CHECK(a.dtype == DType::kFloat32, node_, ": Pow base must be float32, got ",
                  dtype_name(a.dtype));
    } else {
      EDGEQ_CHECK(a.dtype == b.dtype, node_, ": input types differ (", dtype_name(a.dtype), " vs ",
                  dtype_name(b.dtype), ")");
      EDGEQ_CHECK(
          a.dtype == DType::kFloat32 || a.dtype == DType::kInt64 || a.dtype == DType::kInt32, node_,
          ": input type ", dtype_name(a.dtype), " not supported");
    }
    Shape out = broadcast_shapes(a.shape, b.shape, init.node);
    plan_ = make_plan(a.shape, b.shape, out);
    outputs.push_back({a.dtype, out, nullptr});
    const int64_t n = product(out, 0, out.size());
    full_size_[0] = a.dtype == DType::kFloat32 && product(a.shape, 0, a.shape.size()) == n;
    full_size_[1] = b.dtype == DType::kFloat32 && product(b.shape, 0, b.shape.size()) == n;
    fq_ = (init.node).plan.out;
    EDGEQ_CHECK(!fq_.active() || a.dtype == DType::kFloat32, node_,
                ": a fake-quant step needs a float output");
    applies_fake_quant = true;
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& a = *in[0];
    const Tensor* b = in[1];
    Tensor converted;
    if (op == BinaryOp::kPow && b->dtype() != DType::kFloat32) {
      converted = Tensor::from_vector<float>(b->shape(), b->to_floats());
      b = &converted;
    }
    switch (a.dtype()) {
      case DType::kFloat32:
        return run_typed<float>(a, *b, *out[0]);
      case DType::kInt64:
        return run_typed<int64_t>(a, *b, *out[0]);
      case DType::kInt32:
        return run_typed<int32_t>(a, *b, *out[0]);
      default:
        fail(node_, ": unexpected input type ", dtype_name(a.dtype()));
    }
  }
  // A float operand with the output's shape is read in order, so it can be passed on.
  bool observe_input(size_t input, InputObserver fn) override {
    if (input > 1 || !full_size_[input]) return false;
    observers_[input] = std::move(fn);
    return true;
  }

 private:
  template <typename T>
  void run_typed(const Tensor& ta, const Tensor& tb, Tensor& ty) {
    if constexpr (op == BinaryOp::kPow && !std::is_floating_point_v<T>) {
      fail(node_, ": Pow needs float32 inputs");
    } else {
      const T* a = ta.data<T>();
      const T* b = tb.data<T>();
      T* y = ty.data<T>();
      if constexpr (op == BinaryOp::kDiv && std::is_integral_v<T>) {
        for (int64_t i = 0; i < tb.numel(); ++i)
          EDGEQ_CHECK(b[i] != 0, node_, ": integer division by zero");
      }
      const int64_t n = ty.numel(), na = ta.numel(), nb = tb.numel();
      AfterChunk<T> seen;
      seen.out = y;
      seen.fq = fq_;
      for (int k = 0; k < 2; ++k)
        if (observers_[k]) {
          seen.observer[k] = &observers_[k];
          seen.values[k] = k == 0 ? a : b;
        }
      if (na == n && nb == n) {
        binary_same<op, T>(a, b, y, n, seen);
      } else if (na == n && nb == 1) {
        binary_scalar_b<op, T>(a, b[0], y, n, seen);
      } else if (na == 1 && nb == n) {
        binary_scalar_a<op, T>(a[0], b, y, n, seen);
      } else {
        binary_broadcast<op, T>(a, b, y, plan_, seen);
      }
    }
  }

  std::string node_;
  BroadcastPlan plan_;
  FakeQuantParams fq_;  // on the output (float only)
  bool full_size_[2] = {false, false};
  InputObserver observers_[2];  // per input, when observed
};

template <typename K>
void reg(const char* op) {
  register_kernel("", op, [](const KernelInit& i) { return std::make_unique<K>(i); });
}

}  // namespace

void register_elementwise_kernels() {
  register_kernel("", "Sigmoid", [](const KernelInit& i) -> std::unique_ptr<Kernel> {
    if (i.node.plan.silu) return std::make_unique<UnaryKernel<UnaryOp::kSilu>>(i);
    return std::make_unique<UnaryKernel<UnaryOp::kSigmoid>>(i);
  });
  register_kernel("edgeq", "FakeQuant",
                  [](const KernelInit& i) { return std::make_unique<FakeQuantKernel>(i); });
  reg<UnaryKernel<UnaryOp::kRelu>>("Relu");
  reg<UnaryKernel<UnaryOp::kTanh>>("Tanh");
  reg<UnaryKernel<UnaryOp::kExp>>("Exp");
  reg<UnaryKernel<UnaryOp::kSqrt>>("Sqrt");
  reg<UnaryKernel<UnaryOp::kNeg>>("Neg");
  reg<UnaryKernel<UnaryOp::kAbs>>("Abs");
  reg<BinaryKernel<BinaryOp::kAdd>>("Add");
  reg<BinaryKernel<BinaryOp::kSub>>("Sub");
  reg<BinaryKernel<BinaryOp::kMul>>("Mul");
  reg<BinaryKernel<BinaryOp::kDiv>>("Div");
  reg<BinaryKernel<BinaryOp::kPow>>("Pow");
}

}  // namespace edgeq
