// Conv (2-D, grouped, dilated, padded) on oneDNN, in NCHW or NHWC, with an optional fused SiLU
// or an output fake-quant step (runtime/fake_quant.h) as post-ops: divide by the scale (a binary
// post-op, so the division is the one QuantizeLinear does), round half to even, clip to the code
// range, multiply by the scale.
#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/dnnl_context.h"
#include "runtime/fake_quant.h"
#include "runtime/fusion.h"
#include "runtime/kernel.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

class Conv final : public Kernel {
 public:
  explicit Conv(const KernelInit& init) : layout_(init.layout) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    const Tensor& w = init.constant(1);
    EDGEQ_CHECK(x.dtype == DType::kFloat32 && w.dtype() == DType::kFloat32, n.describe(),
                ": only float32 Conv runs here (quantized Conv goes through Q/DQ)");
    EDGEQ_CHECK(x.shape.size() == 4 && w.rank() == 4, n.describe(),
                ": only 2-D convolution is supported (input ", shape_str(x.shape), ")");
    group_ = n.attr_int("group", 1);
    const int64_t c_in = x.shape[1], c_out = w.dim(0);
    EDGEQ_CHECK(
        group_ > 0 && c_in % group_ == 0 && c_out % group_ == 0 && w.dim(1) * group_ == c_in,
        n.describe(), ": weight ", shape_str(w.shape()), " does not fit input ", shape_str(x.shape),
        " with group=", group_);
    kernel_ = {w.dim(2), w.dim(3)};
    auto ks = n.attr_ints("kernel_shape", kernel_);
    EDGEQ_CHECK(ks == kernel_, n.describe(), ": kernel_shape disagrees with the weight shape");
    strides_ = n.attr_ints("strides", {1, 1});
    dilations_ = n.attr_ints("dilations", {1, 1});
    std::vector<int64_t> pads = n.attr_ints("pads", {0, 0, 0, 0});
    EDGEQ_CHECK(strides_.size() == 2 && dilations_.size() == 2 && pads.size() == 4, n.describe(),
                ": strides/dilations/pads must have 2/2/4 entries");
    const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
    std::vector<int64_t> out_hw(2);
    for (int i = 0; i < 2; ++i) {
      int64_t in = x.shape[2 + i], k_eff = (kernel_[i] - 1) * dilations_[i] + 1;
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        out_hw[i] = (in + strides_[i] - 1) / strides_[i];
        int64_t total = std::max<int64_t>(0, (out_hw[i] - 1) * strides_[i] + k_eff - in);
        int64_t small = total / 2, big = total - small;
        pads[i] = auto_pad == "SAME_UPPER" ? small : big;
        pads[i + 2] = auto_pad == "SAME_UPPER" ? big : small;
      } else if (auto_pad == "VALID") {
        pads = {0, 0, 0, 0};
        out_hw[i] = (in - k_eff) / strides_[i] + 1;
      } else {
        out_hw[i] = (in + pads[i] + pads[i + 2] - k_eff) / strides_[i] + 1;
      }
      EDGEQ_CHECK(out_hw[i] > 0, n.describe(), ": output would be empty for input ",
                  shape_str(x.shape));
    }
    pad_l_ = {pads[0], pads[1]};
    pad_r_ = {pads[2], pads[3]};
    weights_ = w;
    if (init.has_input(2)) {
      bias_ = init.constant(2);
      EDGEQ_CHECK(bias_.numel() == c_out, n.describe(), ": bias has ", bias_.numel(),
                  " values for ", c_out, " output channels");
    }
    silu_ = n.attr_string(kFusedActivationAttr, "") == "silu";
    fq_ = fake_quant_of(n);
    EDGEQ_CHECK(!(silu_ && fq_.active()), n.describe(),
                ": a fused SiLU and an output fake-quant step do not combine");
    applies_fake_quant = true;
    src_dims_ = {x.shape[0], c_in, x.shape[2], x.shape[3]};
    dst_dims_ = {x.shape[0], c_out, out_hw[0], out_hw[1]};
    outputs.push_back({DType::kFloat32, {dst_dims_.begin(), dst_dims_.end()}, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (!prim_) build();
    src_mem_.set_data_handle(const_cast<void*>(in[0]->raw()));
    dst_mem_.set_data_handle(out[0]->raw());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src_mem_}, {DNNL_ARG_WEIGHTS, weights_mem_}, {DNNL_ARG_DST, dst_mem_}};
    if (bias_mem_) args[DNNL_ARG_BIAS] = bias_mem_;
    if (fq_scale_mem_) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = fq_scale_mem_;
    prim_.execute(dnnl_stream(), args);
    dnnl_stream().wait();
  }

 private:
  void build() {
    auto& eng = dnnl_engine();
    const tag act = layout_ == Layout::kNHWC ? tag::nhwc : tag::nchw;
    memory::desc src_md(src_dims_, memory::data_type::f32, act);
    memory::desc dst_md(dst_dims_, memory::data_type::f32, act);
    memory::dims w_dims;
    tag w_tag;
    if (group_ == 1) {
      w_dims = {dst_dims_[1], src_dims_[1], kernel_[0], kernel_[1]};
      w_tag = tag::oihw;
    } else {
      w_dims = {group_, dst_dims_[1] / group_, src_dims_[1] / group_, kernel_[0], kernel_[1]};
      w_tag = tag::goihw;
    }
    memory::desc w_any(w_dims, memory::data_type::f32, tag::any);
    memory::desc b_md({dst_dims_[1]}, memory::data_type::f32, tag::x);
    memory::dims dil = {dilations_[0] - 1, dilations_[1] - 1};
    auto desc = bias_.empty()
                    ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct, src_md,
                                                      w_any, dst_md, strides_, dil, pad_l_, pad_r_)
                    : dnnl::convolution_forward::desc(
                          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                          src_md, w_any, b_md, dst_md, strides_, dil, pad_l_, pad_r_);
    dnnl::primitive_attr attr;
    dnnl::post_ops po;
    if (silu_) po.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
    if (fq_.active()) {
      memory::desc scalar({1, 1, 1, 1}, memory::data_type::f32, tag::nchw);
      po.append_binary(dnnl::algorithm::binary_div, scalar);
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, fq_.lo, fq_.hi);
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, fq_.scale, 0.f);
      fq_scale_mem_ = memory(scalar, eng, &fq_.scale);
    }
    attr.set_post_ops(po);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    prim_ = dnnl::convolution_forward(pd);
    memory user_w({w_dims, memory::data_type::f32, w_tag}, eng, weights_.raw());
    weights_mem_ = memory(pd.weights_desc(), eng);
    dnnl::reorder(user_w, weights_mem_).execute(dnnl_stream(), user_w, weights_mem_);
    if (!bias_.empty()) bias_mem_ = memory(b_md, eng, bias_.raw());
    src_mem_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    dst_mem_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    dnnl_stream().wait();
    weights_ = Tensor();  // the reordered copy is all we need now
  }

  Layout layout_;
  int64_t group_ = 1;
  memory::dims kernel_, strides_, dilations_, pad_l_, pad_r_, src_dims_, dst_dims_;
  Tensor weights_, bias_;
  bool silu_ = false;
  FakeQuantParams fq_;
  dnnl::primitive prim_;
  memory weights_mem_, bias_mem_, src_mem_, dst_mem_, fq_scale_mem_;
};

}  // namespace

void register_conv_kernels() {
  register_kernel("", "Conv", [](const KernelInit& i) { return std::make_unique<Conv>(i); });
}

}  // namespace edgeq
