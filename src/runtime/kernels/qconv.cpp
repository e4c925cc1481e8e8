// QConv (domain "edgeq", made by runtime/int8_lowering.h): a QDQ model's Conv on 8-bit codes.
// oneDNN's u8 x s8 -> s32 convolution, the input's zero point subtracted inside it, the int32
// bias added to the accumulator, then one scale per output channel:
//   codes out: (acc + bias) * (s_x * s_w[c] / s_y), rounded half to even, + the output's zero
//              point, saturated to 0..255;
//   float out: (acc + bias) * s_x * s_w[c], then the output's fake-quant step if it has one
//              (a 16-bit value, say).
// Inputs: x (uint8 codes), w (int8 codes, [O, I/group, kH, kW], zero point 0), optional bias
// (int32, scale s_x * s_w[c]). Attributes: Conv's own, kInputGridAttr (x's grid),
// kWeightScalesAttr (one per output channel), kFakeQuantOutAttr and kCodesOutAttr.
#include <algorithm>
#include <cmath>

#include "runtime/int8_lowering.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

class QConv final : public Kernel {
 public:
  explicit QConv(const KernelInit& init) : conv_(spec(init)) {
    outputs.push_back(
        {codes_out_ ? DType::kUInt8 : DType::kFloat32, geom_.output_shape(), nullptr});
    applies_fake_quant = true;
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    conv_.run(in[0]->raw(), out[0]->raw(), src_zero_point_, dst_zero_point_);
  }

 private:
  DnnlConvSpec spec(const KernelInit& init) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    const Tensor& w = init.constant(1);
    EDGEQ_CHECK(x.dtype == DType::kUInt8 && w.dtype() == DType::kInt8, n.describe(),
                ": needs uint8 input codes and int8 weights");
    const FakeQuantParams in = fake_quant_of(n, kInputGridAttr);
    const FakeQuantParams out = fake_quant_of(n);
    std::vector<float> w_scales = n.attr_floats(kWeightScalesAttr);
    EDGEQ_CHECK(in.active() && in.codes() <= 256 && w_scales.size() == size_t(w.dim(0)),
                n.describe(), ": needs its input's 8-bit grid and one weight scale per channel");
    codes_out_ = n.attr_int(kCodesOutAttr, 0) != 0;
    EDGEQ_CHECK(!codes_out_ || (out.active() && out.codes() <= 256), n.describe(),
                ": codes out need an 8-bit output grid");
    DnnlConvSpec s;
    s.geom = geom_ = conv_geometry(n, x.shape, w.shape());
    s.layout = init.layout;
    s.src = dnnl::memory::data_type::u8;
    s.weights = dnnl::memory::data_type::s8;
    s.dst = codes_out_ ? dnnl::memory::data_type::u8 : dnnl::memory::data_type::f32;
    s.weight_data = w;
    src_zero_point_ = static_cast<int32_t>(-in.lo);
    // Without padding every tap reads a real code, so sum((x - zp) * w) = sum(x * w) - zp * sum(w)
    // exactly: the zero point folds into the bias and oneDNN runs its faster kernels without
    // zero-point compensation. (With padding, padded taps must read zp, not code 0.)
    const bool padded =
        std::any_of(s.geom.pad_l.begin(), s.geom.pad_l.end(), [](auto p) { return p != 0; }) ||
        std::any_of(s.geom.pad_r.begin(), s.geom.pad_r.end(), [](auto p) { return p != 0; });
    const bool fold_zero_point = src_zero_point_ != 0 && !padded;
    const int64_t c_out = w.dim(0), per_out = w.numel() / c_out;
    std::vector<int64_t> bias(c_out, 0);
    if (init.has_input(2)) {
      const Tensor& b = init.constant(2);
      EDGEQ_CHECK(b.dtype() == DType::kInt32 && b.numel() == c_out, n.describe(),
                  ": bias must be int32 with one value per output channel");
      for (int64_t c = 0; c < c_out; ++c) bias[c] = b.data<int32_t>()[c];
    }
    if (fold_zero_point)
      for (int64_t c = 0; c < c_out; ++c) {
        int64_t sum = 0;
        for (int64_t k = 0; k < per_out; ++k) sum += w.data<int8_t>()[c * per_out + k];
        bias[c] -= int64_t{src_zero_point_} * sum;
      }
    if (init.has_input(2) || fold_zero_point) {
      s.bias = Tensor(DType::kFloat32, {c_out});
      for (int64_t c = 0; c < c_out; ++c) s.bias.data<float>()[c] = static_cast<float>(bias[c]);
    }
    if (fold_zero_point) src_zero_point_ = 0;
    for (float ws : w_scales) {
      const double to_value = double(in.scale) * ws;
      s.output_scales.push_back(static_cast<float>(codes_out_ ? to_value / out.scale : to_value));
    }
    if (!codes_out_) s.fake_quant = out;
    s.src_zero_point = src_zero_point_ != 0;
    if (codes_out_) {
      dst_zero_point_ = static_cast<int32_t>(-out.lo);
      s.dst_zero_point = dst_zero_point_ != 0;
    }
    return s;
  }

  ConvGeometry geom_;
  bool codes_out_ = false;
  int32_t src_zero_point_ = 0, dst_zero_point_ = 0;
  DnnlConv conv_;
};

}  // namespace

void register_qconv_kernels() {
  register_kernel("edgeq", "QConv", [](const KernelInit& i) { return std::make_unique<QConv>(i); });
}

}  // namespace edgeq
