// What the float Conv (conv.cpp) and the integer QConv (qconv.cpp) share: the geometry read from
// an ONNX Conv node, and one oneDNN convolution primitive with its weights reordered once and its
// post-ops (a fused SiLU, an output fake-quant step).
#pragma once
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "runtime/fake_quant.h"
#include "runtime/kernel.h"

namespace edgeq {

struct ConvGeometry {
  int64_t group = 1;
  dnnl::memory::dims kernel, strides, dilations, pad_l, pad_r, src_dims, dst_dims;
  Shape output_shape() const { return {dst_dims.begin(), dst_dims.end()}; }
};

// Reads kernel_shape, strides, dilations, pads and auto_pad of a 2-D Conv; throws naming the node
// when they do not fit the input and weight shapes.
ConvGeometry conv_geometry(const Node& n, const Shape& x, const Shape& w);

struct DnnlConvSpec {
  ConvGeometry geom;
  Layout layout = Layout::kPlain;
  dnnl::memory::data_type src = dnnl::memory::data_type::f32;
  dnnl::memory::data_type weights = dnnl::memory::data_type::f32;
  dnnl::memory::data_type dst = dnnl::memory::data_type::f32;
  Tensor weight_data;  // [O, I/group, kH, kW] of `weights`' type
  Tensor bias;         // f32 [O] or empty
  bool silu = false;
  FakeQuantParams fake_quant;        // on the output, after everything else
  std::vector<float> output_scales;  // int8: per output channel (applied to accumulator + bias)
  bool src_zero_point = false;       // int8: zero points given per run
  bool dst_zero_point = false;
};

// A oneDNN convolution built on its first run, on the thread that runs it (oneDNN's default
// scratchpad is per thread).
class DnnlConv {
 public:
  explicit DnnlConv(DnnlConvSpec spec) : spec_(std::move(spec)) {}
  void run(const void* src, void* dst, int32_t src_zero_point = 0, int32_t dst_zero_point = 0);

 private:
  void build();
  DnnlConvSpec spec_;
  dnnl::primitive prim_;
  dnnl::memory weights_mem_, bias_mem_, src_mem_, dst_mem_, fq_scale_mem_, src_zp_mem_, dst_zp_mem_;
};

}  // namespace edgeq
