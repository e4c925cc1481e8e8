// Conv (2-D, grouped, dilated, padded) on oneDNN, in NCHW or NHWC, with an optional fused SiLU
// or an output fake-quant step (runtime/fake_quant.h) as post-ops: divide by the scale (a binary
// post-op, so the division is the one QuantizeLinear does), round half to even, clip to the code
// range, multiply by the scale. A 1x1 Conv the planner wants written plain runs our own kernel
// (pointwise_conv.h); a 3x3 stride-1 Conv in NHWC runs Winograd's F(4x4, 3x3) where oneDNN runs
// its AVX2 kernels (winograd_conv.h). The integer QConv of --exec int8 is in qconv.cpp.
#include <memory>

#include "runtime/fusion.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/pointwise_conv.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/winograd_conv.h"

namespace edgeq {
namespace {

class Conv final : public Kernel {
 public:
  explicit Conv(const KernelInit& init) : conv_(spec(init)) {
    outputs.push_back({DType::kFloat32, geom_.output_shape(), nullptr});
    applies_fake_quant = true;
    if (init.layout == Layout::kNHWC && WinogradConv::supports(geom_)) {
      const Tensor* bias = init.has_input(2) ? &init.constant(2) : nullptr;
      winograd_ = std::make_unique<WinogradConv>(geom_, init.constant(1).data<float>(),
                                                 bias ? bias->data<float>() : nullptr,
                                                 init.node.plan.silu, init.node.plan.out);
    }
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (winograd_) return winograd_->run(in[0]->data<float>(), out[0]->data<float>());
    conv_.run(in[0]->raw(), out[0]->raw());
  }

 private:
  DnnlConvSpec spec(const KernelInit& init) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    const Tensor& w = init.constant(1);
    EDGEQ_CHECK(x.dtype == DType::kFloat32 && w.dtype() == DType::kFloat32, n.describe(),
                ": only float32 Conv runs here (quantized Conv goes through Q/DQ)");
    DnnlConvSpec s;
    s.geom = geom_ = conv_geometry(n, x.shape, w.shape());
    s.layout = init.layout;
    s.weight_data = w;
    if (init.has_input(2)) {
      s.bias = init.constant(2);
      EDGEQ_CHECK(s.bias.numel() == w.dim(0), n.describe(), ": bias has ", s.bias.numel(),
                  " values for ", w.dim(0), " output channels");
    }
    s.silu = n.plan.silu;
    s.fake_quant = n.plan.out;
    EDGEQ_CHECK(!(s.silu && s.fake_quant.active()), n.describe(),
                ": a fused SiLU and an output fake-quant step do not combine");
    return s;
  }

  ConvGeometry geom_;
  DnnlConv conv_;                           // oneDNN's convolution, built on first use
  std::unique_ptr<WinogradConv> winograd_;  // where it runs the geometry instead
};

}  // namespace

void register_conv_kernels() {
  register_kernel("", "Conv", [](const KernelInit& i) -> std::unique_ptr<Kernel> {
    // The planner asks for the plain output explicitly (runtime/layout_choice.h).
    if (i.output_layout == Layout::kPlain) return make_pointwise_conv(i);
    return std::make_unique<Conv>(i);
  });
}

}  // namespace edgeq
