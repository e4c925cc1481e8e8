// Kernels on 8-bit codes (domain "edgeq", made by runtime/int8_lowering.h). A code c of a value on
// the grid (scale s, codes lo..hi after subtracting the zero point, runtime/fake_quant.h) stands
// for (c + lo) * s: exactly the value the simulation holds.
//   Quantize    float -> codes: c = clamp(round_half_even(x / s), lo, hi) - lo.
//   Dequantize  codes -> float: (c + lo) * s.
//   QLut        codes -> codes or floats through a table made at plan time by running the float
//               op on every code (256 entries), so the result is the simulation's, bit for bit.
//   QBinary     Add / Sub / Mul / Div of two coded operands, computed as the float kernels do.
// All are elementwise: any layout.
#include <cmath>

#include "core/simd.h"
#include "runtime/fake_quant.h"
#include "runtime/int8_lowering.h"
#include "runtime/kernel.h"
#include "runtime/kernels/byte_lut.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

FakeQuantParams grid_of(const KernelInit& init) {
  FakeQuantParams p = (init.node).plan.out;
  EDGEQ_CHECK(p.active() && p.codes() <= 256, init.node.describe(), ": needs an 8-bit grid");
  return p;
}

// The loops, in AVX-512 / AVX2 / baseline clones (core/simd.h): std::rint is one instruction
// from SSE4.1 on, a library call per value below it.
EDGEQ_ALWAYS_INLINE void quantize_body(const float* x, uint8_t* y, int64_t n, float s, float lo,
                                       float hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float k = std::rint(x[i] / s);
    k = k > hi ? hi : k;
    k = k >= lo ? k : lo;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(k - lo));
  }
}
EDGEQ_SIMD_CLONES(, void, quantize_span, quantize_body,
                  (const float* x, uint8_t* y, int64_t n, float s, float lo, float hi),
                  (x, y, n, s, lo, hi))

EDGEQ_ALWAYS_INLINE void dequantize_body(const uint8_t* x, float* y, int64_t n, float s, float lo) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = (static_cast<float>(x[i]) + lo) * s;
}
EDGEQ_SIMD_CLONES(, void, dequantize_span, dequantize_body,
                  (const uint8_t* x, float* y, int64_t n, float s, float lo), (x, y, n, s, lo))

// QBinary's grids: operand a's and b's scale and lowest code, the output's scale and code range.
struct BinaryGrids {
  float sa, la, sb, lb, so, lo, hi;
};

template <int op>
EDGEQ_ALWAYS_INLINE float apply_binary_op(float x, float y) {
  if constexpr (op == 0) return x + y;
  if constexpr (op == 1) return x - y;
  if constexpr (op == 2) return x * y;
  return x / y;
}

template <int op>
EDGEQ_ALWAYS_INLINE void qbinary_codes_body(const uint8_t* a, const uint8_t* b, uint8_t* y,
                                            int64_t n, BinaryGrids g) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float k = std::rint(
        apply_binary_op<op>((float(a[i]) + g.la) * g.sa, (float(b[i]) + g.lb) * g.sb) / g.so);
    k = k > g.hi ? g.hi : k;
    k = k >= g.lo ? k : g.lo;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(k - g.lo));
  }
}
EDGEQ_SIMD_CLONES(template <int op>, void, qbinary_codes, qbinary_codes_body<op>,
                  (const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n, BinaryGrids g),
                  (a, b, y, n, g))

template <int op>
EDGEQ_ALWAYS_INLINE void qbinary_float_body(const uint8_t* a, const uint8_t* b, float* y, int64_t n,
                                            BinaryGrids g) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    y[i] = apply_binary_op<op>((float(a[i]) + g.la) * g.sa, (float(b[i]) + g.lb) * g.sb);
}
EDGEQ_SIMD_CLONES(template <int op>, void, qbinary_float, qbinary_float_body<op>,
                  (const uint8_t* a, const uint8_t* b, float* y, int64_t n, BinaryGrids g),
                  (a, b, y, n, g))

class QuantizeKernel : public Kernel {
 public:
  explicit QuantizeKernel(const KernelInit& init) : p_(grid_of(init)) {
    EDGEQ_CHECK(init.in(0).dtype == DType::kFloat32, init.node.describe(), ": needs float32");
    outputs.push_back({DType::kUInt8, init.in(0).shape, nullptr});
    applies_fake_quant = true;
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* x = in[0]->data<float>();
    uint8_t* y = out[0]->data<uint8_t>();
    const float s = p_.scale, lo = p_.lo, hi = p_.hi;
    const auto span = simd_pick(quantize_span_avx512, quantize_span_avx2, quantize_span_scalar);
    for_chunks(in[0]->numel(), [&](int64_t b, int64_t e) { span(x + b, y + b, e - b, s, lo, hi); });
  }

 private:
  FakeQuantParams p_;
};

class DequantizeKernel : public Kernel {
 public:
  explicit DequantizeKernel(const KernelInit& init) : p_(grid_of(init)) {
    EDGEQ_CHECK(init.in(0).dtype == DType::kUInt8, init.node.describe(), ": needs uint8 codes");
    outputs.push_back({DType::kFloat32, init.in(0).shape, nullptr});
    applies_fake_quant = true;
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const uint8_t* x = in[0]->data<uint8_t>();
    float* y = out[0]->data<float>();
    const float s = p_.scale, lo = p_.lo;
    const auto span =
        simd_pick(dequantize_span_avx512, dequantize_span_avx2, dequantize_span_scalar);
    for_chunks(in[0]->numel(), [&](int64_t b, int64_t e) { span(x + b, y + b, e - b, s, lo); });
  }

 private:
  FakeQuantParams p_;
};

class QLutKernel : public Kernel {
 public:
  explicit QLutKernel(const KernelInit& init) {
    const Node& n = init.node;
    EDGEQ_CHECK(n.inputs.size() == 1 && init.in(0).dtype == DType::kUInt8, n.describe(),
                ": needs one uint8 code input");
    if (!n.plan.lut_codes.empty()) {
      codes_ = n.plan.lut_codes;
      EDGEQ_CHECK(codes_.size() == 256, n.describe(), ": table of ", codes_.size(), " codes");
    } else {
      values_ = n.plan.lut_values;
      EDGEQ_CHECK(values_.size() == 256, n.describe(), ": table of ", values_.size(), " values");
    }
    outputs.push_back(
        {codes_.empty() ? DType::kFloat32 : DType::kUInt8, init.in(0).shape, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const uint8_t* x = in[0]->data<uint8_t>();
    if (!codes_.empty()) {
      uint8_t* y = out[0]->data<uint8_t>();
      for_chunks(
          in[0]->numel(),
          [&](int64_t s, int64_t e) { byte_lut(x + s, y + s, e - s, codes_.data()); },
          kParallelBytes);
      return;
    }
    float* y = out[0]->data<float>();
    for_chunks(in[0]->numel(), [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) y[i] = values_[x[i]];
    });
  }

 private:
  std::vector<uint8_t> codes_;
  std::vector<float> values_;
};

// Add / Sub / Mul / Div of two coded operands of one shape, computed as the simulation does:
// each operand's value (c + lo) * s, the float op, then the output's step. (This file is built with
// -ffp-contract=off so that no multiply-add is fused where the float kernels round twice.)
class QBinaryKernel : public Kernel {
 public:
  explicit QBinaryKernel(const KernelInit& init) {
    const Node& n = init.node;
    EDGEQ_CHECK(n.inputs.size() == 2 && init.in(0).dtype == DType::kUInt8 &&
                    init.in(1).dtype == DType::kUInt8 && init.in(0).shape == init.in(1).shape,
                n.describe(), ": needs two uint8 code inputs of one shape");
    a_ = n.plan.in_grid;
    b_ = n.plan.in_grid_b;
    out_ = n.plan.out;
    codes_out_ = n.plan.codes_out;
    EDGEQ_CHECK(a_.active() && b_.active() && (!codes_out_ || out_.active()), n.describe(),
                ": needs the inputs' grids (and the output's for codes out)");
    const std::string& op = n.plan.binary_op;
    op_ = op == "Add" ? 0 : op == "Sub" ? 1 : op == "Mul" ? 2 : op == "Div" ? 3 : -1;
    EDGEQ_CHECK(op_ >= 0, n.describe(), ": unknown operation '", op, "'");
    outputs.push_back({codes_out_ ? DType::kUInt8 : DType::kFloat32, init.in(0).shape, nullptr});
    applies_fake_quant = true;
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const uint8_t* a = in[0]->data<uint8_t>();
    const uint8_t* b = in[1]->data<uint8_t>();
    for_chunks(in[0]->numel(), [&](int64_t s, int64_t e) {
      switch (op_) {
        case 0:
          return span<0>(a, b, *out[0], s, e);
        case 1:
          return span<1>(a, b, *out[0], s, e);
        case 2:
          return span<2>(a, b, *out[0], s, e);
        default:
          return span<3>(a, b, *out[0], s, e);
      }
    });
  }

 private:
  template <int op>
  void span(const uint8_t* a, const uint8_t* b, Tensor& y, int64_t s, int64_t e) const {
    const BinaryGrids g{a_.scale, a_.lo, b_.scale, b_.lo, out_.scale, out_.lo, out_.hi};
    if (codes_out_) {
      simd_pick(qbinary_codes_avx512<op>, qbinary_codes_avx2<op>, qbinary_codes_scalar<op>)(
          a + s, b + s, y.data<uint8_t>() + s, e - s, g);
      return;
    }
    float* yf = y.data<float>();
    simd_pick(qbinary_float_avx512<op>, qbinary_float_avx2<op>, qbinary_float_scalar<op>)(
        a + s, b + s, yf + s, e - s, g);
    if (out_.active()) fake_quant_span(yf + s, yf + s, e - s, out_);
  }
  FakeQuantParams a_, b_, out_;
  bool codes_out_ = false;
  int op_ = -1;
};

}  // namespace

void register_code_kernels() {
  register_kernel("edgeq", "QBinary",
                  [](const KernelInit& i) { return std::make_unique<QBinaryKernel>(i); });
  register_kernel("edgeq", "Quantize",
                  [](const KernelInit& i) { return std::make_unique<QuantizeKernel>(i); });
  register_kernel("edgeq", "Dequantize",
                  [](const KernelInit& i) { return std::make_unique<DequantizeKernel>(i); });
  register_kernel("edgeq", "QLut",
                  [](const KernelInit& i) { return std::make_unique<QLutKernel>(i); });
}

}  // namespace edgeq
