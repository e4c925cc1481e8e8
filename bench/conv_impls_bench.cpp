// Every FP32 convolution shape of the bench model (bench_util.h), timed with each implementation
// oneDNN offers for it at the level it runs (ONEDNN_MAX_CPU_ISA caps it): what the executor's
// choice of kernel per shape rests on. NHWC activations, weights in the layout each implementation
// asks for, bias and the fused SiLU (as the executor runs them). Counters: GFLOP/s, and "default"
// = 1 for the implementation oneDNN picks first. Where the executor runs a shape on edgeq's own
// Winograd kernel instead (winograd_conv.h: 3x3 stride 1 at the AVX2 level) a "winograd" row
// times that, with "max_diff", its largest difference from oneDNN's output on the same data.
//   EDGEQ_SIMD=avx2 ONEDNN_MAX_CPU_ISA=AVX2 build/edgeq_bench --benchmark_filter=ConvImpl
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <oneapi/dnnl/dnnl.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ir/onnx_io.h"
#include "runtime/dnnl_context.h"
#include "runtime/executor.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/winograd_conv.h"

namespace edgeq {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

dnnl::convolution_forward::primitive_desc conv_pd(const ConvGeometry& g) {
  memory::desc src({g.src_dims}, memory::data_type::f32, tag::nhwc);
  memory::desc dst({g.dst_dims}, memory::data_type::f32, tag::nhwc);
  memory::dims w = g.group == 1
                       ? memory::dims{g.dst_dims[1], g.src_dims[1], g.kernel[0], g.kernel[1]}
                       : memory::dims{g.group, g.dst_dims[1] / g.group, g.src_dims[1] / g.group,
                                      g.kernel[0], g.kernel[1]};
  memory::desc wd(w, memory::data_type::f32, tag::any);
  memory::desc bd({g.dst_dims[1]}, memory::data_type::f32, tag::x);
  dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wd, bd, dst,
      g.strides, {g.dilations[0] - 1, g.dilations[1] - 1}, g.pad_l, g.pad_r);
  dnnl::post_ops po;
  po.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return dnnl::convolution_forward::primitive_desc(d, attr, dnnl_engine());
}

double conv_flops(const ConvGeometry& g) {
  return 2.0 * double(g.dst_dims[1]) * double(g.dst_dims[2]) * double(g.dst_dims[3]) *
         double(g.kernel[0] * g.kernel[1]) * double(g.src_dims[1] / g.group);
}

std::string shape_name(const ConvGeometry& g) {
  return (g.group > 1 ? "g" + std::to_string(g.group) + "_" : std::string()) + "ic" +
         std::to_string(g.src_dims[1]) + "_oc" + std::to_string(g.dst_dims[1]) + "_" +
         std::to_string(g.src_dims[2]) + "x" + std::to_string(g.src_dims[3]) + "_k" +
         std::to_string(g.kernel[0]) + "s" + std::to_string(g.strides[0]);
}

void run_impl(benchmark::State& state, ConvGeometry g, int impl) {
  auto pd = conv_pd(g);
  for (int i = 0; i < impl; ++i) pd.next_impl();
  dnnl::convolution_forward prim(pd);
  auto& eng = dnnl_engine();
  memory src(pd.src_desc(), eng), dst(pd.dst_desc(), eng), w(pd.weights_desc(), eng);
  memory b({{g.dst_dims[1]}, memory::data_type::f32, tag::x}, eng);
  for (memory* m : {&src, &w, &b}) {
    float* p = static_cast<float*>(m->get_data_handle());
    for (size_t i = 0; i < m->get_desc().get_size() / sizeof(float); ++i)
      p[i] = float((i * 7919) % 255) / 255.f - 0.5f;
  }
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}};
  for (auto _ : state) {
    prim.execute(dnnl_stream(), args);
    dnnl_stream().wait();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(conv_flops(g) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["default"] = impl == 0;
  state.SetLabel(pd.impl_info_str());
}

void run_winograd(benchmark::State& state, ConvGeometry g) {
  const int64_t oc = g.dst_dims[1], ic = g.src_dims[1];
  std::vector<float> weights(oc * ic * 9), bias(oc);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = float((i * 7919) % 255) / 1275.f - 0.1f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(i % 7) * 0.1f - 0.3f;
  auto pd = conv_pd(g);
  auto& eng = dnnl_engine();
  memory user_w({{oc, ic, 3, 3}, memory::data_type::f32, tag::oihw}, eng, weights.data());
  memory w(pd.weights_desc(), eng), src(pd.src_desc(), eng), dst(pd.dst_desc(), eng);
  memory b({{oc}, memory::data_type::f32, tag::x}, eng, bias.data());
  dnnl::reorder(user_w, w).execute(dnnl_stream(), user_w, w);
  float* x = static_cast<float*>(src.get_data_handle());
  for (size_t i = 0; i < pd.src_desc().get_size() / sizeof(float); ++i)
    x[i] = float((i * 104729) % 1000) / 500.f - 1.f;
  dnnl::convolution_forward(pd).execute(
      dnnl_stream(),
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  dnnl_stream().wait();
  const WinogradConv conv(g, weights.data(), bias.data(), /*silu=*/true);
  std::vector<float> y(pd.dst_desc().get_size() / sizeof(float));
  conv.run(x, y.data());
  const float* want = static_cast<const float*>(dst.get_data_handle());
  double max_diff = 0;
  for (size_t i = 0; i < y.size(); ++i)
    max_diff = std::max(max_diff, double(std::fabs(y[i] - want[i])));
  for (auto _ : state) conv.run(x, y.data());
  state.counters["GFLOP/s"] =
      benchmark::Counter(conv_flops(g) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["max_diff"] = max_diff;
}

// Registers one benchmark per (shape, implementation) of the model's Convs, at static init.
bool register_all() {
  std::string path;
  if (const char* env = std::getenv("EDGEQ_BENCH_MODEL"))
    path = env;
  else
    path = std::string(EDGEQ_SOURCE_DIR) + "/models/yolo11n-pose.onnx";
  if (!std::filesystem::exists(path)) return false;
  Graph g = load_onnx(path);
  Executor ex(g);
  std::set<std::string> seen;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Conv") continue;
    const Shape& x = ex.desc(n.inputs[0]).shape;
    const Shape& w = g.initializers.at(n.inputs[1]).shape();
    const ConvGeometry geom = conv_geometry(n, x, w);
    const std::string name = shape_name(geom);
    if (!seen.insert(name).second) continue;
    auto pd = conv_pd(geom);
    for (int impl = 0;; ++impl) {
      const std::string impl_name = pd.impl_info_str();
      if (impl_name.rfind("ref", 0) != 0)  // the reference loops: far slower, never chosen
        benchmark::RegisterBenchmark(("BM_ConvImpl/" + name + "/" + std::to_string(impl)).c_str(),
                                     run_impl, geom, impl)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      if (!pd.next_impl()) break;
    }
    if (WinogradConv::supports(geom))
      benchmark::RegisterBenchmark(("BM_ConvImpl/" + name + "/winograd").c_str(), run_winograd,
                                   geom)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
  }
  return true;
}
const bool registered = register_all();

}  // namespace
}  // namespace edgeq
