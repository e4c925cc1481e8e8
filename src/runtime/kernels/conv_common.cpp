#include "runtime/kernels/conv_common.h"

#include <omp.h>

#include <algorithm>
#include <string>

#include "runtime/dnnl_context.h"

namespace edgeq {

using dnnl::memory;
using tag = memory::format_tag;

ConvGeometry conv_geometry(const Node& n, const Shape& x, const Shape& w) {
  EDGEQ_CHECK(x.size() == 4 && w.size() == 4, n.describe(),
              ": only 2-D convolution is supported (input ", shape_str(x), ")");
  ConvGeometry g;
  g.group = n.attr_int("group", 1);
  const int64_t c_in = x[1], c_out = w[0];
  EDGEQ_CHECK(g.group > 0 && c_in % g.group == 0 && c_out % g.group == 0 && w[1] * g.group == c_in,
              n.describe(), ": weight ", shape_str(w), " does not fit input ", shape_str(x),
              " with group=", g.group);
  g.kernel = {w[2], w[3]};
  auto ks = n.attr_ints("kernel_shape", g.kernel);
  EDGEQ_CHECK(ks == g.kernel, n.describe(), ": kernel_shape disagrees with the weight shape");
  g.strides = n.attr_ints("strides", {1, 1});
  g.dilations = n.attr_ints("dilations", {1, 1});
  std::vector<int64_t> pads = n.attr_ints("pads", {0, 0, 0, 0});
  EDGEQ_CHECK(g.strides.size() == 2 && g.dilations.size() == 2 && pads.size() == 4, n.describe(),
              ": strides/dilations/pads must have 2/2/4 entries");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> out_hw(2);
  for (int i = 0; i < 2; ++i) {
    int64_t in = x[2 + i], k_eff = (g.kernel[i] - 1) * g.dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out_hw[i] = (in + g.strides[i] - 1) / g.strides[i];
      int64_t total = std::max<int64_t>(0, (out_hw[i] - 1) * g.strides[i] + k_eff - in);
      int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[i + 2] = auto_pad == "SAME_UPPER" ? big : small;
    } else if (auto_pad == "VALID") {
      pads = {0, 0, 0, 0};
      out_hw[i] = (in - k_eff) / g.strides[i] + 1;
    } else {
      out_hw[i] = (in + pads[i] + pads[i + 2] - k_eff) / g.strides[i] + 1;
    }
    EDGEQ_CHECK(out_hw[i] > 0, n.describe(), ": output would be empty for input ", shape_str(x));
  }
  g.pad_l = {pads[0], pads[1]};
  g.pad_r = {pads[2], pads[3]};
  g.src_dims = {x[0], c_in, x[2], x[3]};
  g.dst_dims = {x[0], c_out, out_hw[0], out_hw[1]};
  return g;
}

void DnnlConv::run(const void* src, void* dst, int32_t src_zero_point, int32_t dst_zero_point) {
  if (!prim_) build();
  src_mem_.set_data_handle(const_cast<void*>(src));
  dst_mem_.set_data_handle(dst);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src_mem_}, {DNNL_ARG_WEIGHTS, weights_mem_}, {DNNL_ARG_DST, dst_mem_}};
  if (bias_mem_) args[DNNL_ARG_BIAS] = bias_mem_;
  if (fq_scale_mem_) {
    const int index = spec_.silu ? 1 : 0;  // the post-op dividing by the scale
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1] = fq_scale_mem_;
  }
  if (src_zp_mem_) {
    *static_cast<int32_t*>(src_zp_mem_.get_data_handle()) = src_zero_point;
    args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = src_zp_mem_;
  }
  if (dst_zp_mem_) {
    *static_cast<int32_t*>(dst_zp_mem_.get_data_handle()) = dst_zero_point;
    args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = dst_zp_mem_;
  }
  prim_.execute(dnnl_stream(), args);
  dnnl_stream().wait();
}

namespace {

constexpr int kStableThreads = 8;

// Whether oneDNN picks the same weights layout for `desc` at every thread count up to
// kStableThreads (the calling thread's OpenMP setting is restored).
bool layout_is_stable(const dnnl::convolution_forward::desc& desc,
                      const dnnl::primitive_attr& attr) {
  const int threads = omp_get_max_threads();
  bool stable = true;
  try {
    memory::desc first;
    for (int n = 1; n <= kStableThreads && stable; ++n) {
      omp_set_num_threads(n);
      memory::desc w =
          dnnl::convolution_forward::primitive_desc(desc, attr, dnnl_engine()).weights_desc();
      if (n == 1)
        first = w;
      else
        stable = w == first;
    }
  } catch (...) {
    omp_set_num_threads(threads);
    throw;
  }
  omp_set_num_threads(threads);
  return stable;
}

}  // namespace

void DnnlConv::build() {
  auto& eng = dnnl_engine();
  const ConvGeometry& g = spec_.geom;
  const tag act = spec_.layout == Layout::kNHWC ? tag::nhwc : tag::nchw;
  memory::desc src_md(g.src_dims, spec_.src, act);
  memory::desc dst_md(g.dst_dims, spec_.dst, act);
  memory::dims w_dims;
  tag w_tag;
  if (g.group == 1) {
    w_dims = {g.dst_dims[1], g.src_dims[1], g.kernel[0], g.kernel[1]};
    w_tag = tag::oihw;
  } else {
    w_dims = {g.group, g.dst_dims[1] / g.group, g.src_dims[1] / g.group, g.kernel[0], g.kernel[1]};
    w_tag = tag::goihw;
  }
  memory::desc w_any(w_dims, spec_.weights, tag::any);
  memory::desc b_md({g.dst_dims[1]}, memory::data_type::f32, tag::x);
  memory::dims dil = {g.dilations[0] - 1, g.dilations[1] - 1};
  const bool with_bias = !spec_.bias.empty();
  auto desc =
      with_bias ? dnnl::convolution_forward::desc(
                      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                      src_md, w_any, b_md, dst_md, g.strides, dil, g.pad_l, g.pad_r)
                : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                  dnnl::algorithm::convolution_direct, src_md,
                                                  w_any, dst_md, g.strides, dil, g.pad_l, g.pad_r);
  dnnl::primitive_attr attr;
  dnnl::post_ops po;
  if (spec_.silu) po.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
  const FakeQuantParams& fq = spec_.fake_quant;
  if (fq.active()) {
    // The division QuantizeLinear does (a binary post-op: exact), round half to even, clip to
    // the codes, back to the value.
    memory::desc scalar({1, 1, 1, 1}, memory::data_type::f32, tag::nchw);
    po.append_binary(dnnl::algorithm::binary_div, scalar);
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, fq.lo, fq.hi);
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, fq.scale, 0.f);
    fq_scale_mem_ = memory(scalar, eng, &spec_.fake_quant.scale);
  }
  attr.set_post_ops(po);
  if (!spec_.output_scales.empty())
    attr.set_output_scales(spec_.output_scales.size() > 1 ? 1 << 1 : 0, spec_.output_scales);
  memory::desc zp_md({1}, memory::data_type::s32, tag::x);
  if (spec_.src_zero_point) {
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    src_zp_mem_ = memory(zp_md, eng);
  }
  if (spec_.dst_zero_point) {
    attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    dst_zp_mem_ = memory(zp_md, eng);
  }
  // oneDNN's brgemm convolutions pick their blocking from the thread count, and for some shapes
  // the sums come out in another order: yolo11n-pose's 3x3 256->51 keypoint conv at 20x20 gets
  // 32-channel weight blocks at 1, 2, 6 and 8 threads and 64 at 3, 4, 5 and 7, with different
  // last bits. Where the weights layout oneDNN picks is not the same at every thread count from 1
  // to kStableThreads, the convolution skips the brgemm implementations (the direct JIT kernel
  // sums in one order at any thread count), so results do not depend on the thread count.
  // (Integer sums do not depend on their order: int8 convolutions keep oneDNN's choice.)
  dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
  if (spec_.weights == memory::data_type::f32 && !layout_is_stable(desc, attr)) {
    while (std::string(pd.impl_info_str()).rfind("brg", 0) == 0 && pd.next_impl()) {
    }
  }
  prim_ = dnnl::convolution_forward(pd);
  memory user_w({w_dims, spec_.weights, w_tag}, eng, spec_.weight_data.raw());
  weights_mem_ = memory(pd.weights_desc(), eng);
  dnnl::reorder(user_w, weights_mem_).execute(dnnl_stream(), user_w, weights_mem_);
  if (with_bias) bias_mem_ = memory(b_md, eng, spec_.bias.raw());
  src_mem_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
  dst_mem_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
  dnnl_stream().wait();
  spec_.weight_data = Tensor();  // the reordered copy is all we need now
}

}  // namespace edgeq
