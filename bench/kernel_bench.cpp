// Inner loops at each SIMD level this CPU has (core/simd.h): the byte table lookup of the int8
// kernels (QLut, Concat re-encoding) over a 160x160x32 activation's bytes, and the NHWC -> NCHW
// layout conversion of a float head output (yolo11n-pose's 80x80 boxes-and-score Concat, 65
// channels; one thread). Kernels as the executor runs them (all threads): the NHWC Concat of a
// C3k2 block (model.2's three 16-channel 160x160 inputs, or 32-channel ones; inline 16-byte
// moves per row instead of memcpy were tried here and lost: 80 against 72 us, 129 against 81) and
// the head's 80x80 64 -> 64 pointwise Conv writing plain (kernels/pointwise_conv.h) at each level,
// against what it replaced (oneDNN's NHWC Conv, then the conversion to NCHW).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/simd.h"
#include "runtime/kernel.h"
#include "runtime/kernels/byte_lut.h"
#include "runtime/layout.h"

namespace edgeq {
namespace {

void BM_ByteLut(benchmark::State& state) {
  const auto level = static_cast<SimdLevel>(state.range(0));
  if (level > simd_supported()) return state.SkipWithError("this CPU lacks the level");
  const SimdLevel saved = simd_level();
  set_simd_level(level);
  const int64_t n = 160 * 160 * 32;
  std::vector<uint8_t> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  uint8_t table[256];
  for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(255 - i);
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 13);
  for (auto _ : state) {
    byte_lut(x.data(), y.data(), n, table);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * n);
  state.SetLabel(simd_level_name(level));
  set_simd_level(saved);
}
BENCHMARK(BM_ByteLut)->DenseRange(0, 2);

void BM_NhwcToNchw(benchmark::State& state) {
  const auto level = static_cast<SimdLevel>(state.range(0));
  if (level > simd_supported()) return state.SkipWithError("this CPU lacks the level");
  const SimdLevel saved = simd_level();
  set_simd_level(level);
  Tensor x(DType::kFloat32, {1, 80, 80, 65}), y(DType::kFloat32, {1, 65, 80, 80});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i);
  for (auto _ : state) {
    nhwc_to_nchw(x, y);
    benchmark::DoNotOptimize(y.raw());
  }
  state.SetBytesProcessed(state.iterations() * x.numel() * 4);
  state.SetLabel(simd_level_name(level));
  set_simd_level(saved);
}
BENCHMARK(BM_NhwcToNchw)->DenseRange(0, 2);

Node bench_node(const std::string& op, int inputs) {
  Node n;
  n.name = "bench";
  n.op_type = op;
  for (int i = 0; i < inputs; ++i) n.inputs.push_back("in" + std::to_string(i));
  n.outputs = {"out"};
  return n;
}

void BM_ConcatNhwc(benchmark::State& state) {
  const int64_t c = state.range(0);
  Node n = bench_node("Concat", 3);
  Attribute axis;
  axis.kind = Attribute::Kind::kInt;
  axis.i = 1;
  n.attrs["axis"] = axis;
  const ValueDesc d{DType::kFloat32, {1, c, 160, 160}, nullptr};
  KernelInit init{n, {d, d, d}, 17, Layout::kNHWC};
  std::unique_ptr<Kernel> k = create_kernel(init);
  std::vector<Tensor> x(3, Tensor(DType::kFloat32, {1, 160, 160, c}));
  Tensor y(DType::kFloat32, {1, 160, 160, 3 * c});
  for (auto _ : state) {
    k->run({&x[0], &x[1], &x[2]}, {&y});
    benchmark::DoNotOptimize(y.raw());
  }
  state.SetBytesProcessed(state.iterations() * y.numel() * 4);
}
BENCHMARK(BM_ConcatNhwc)->Arg(16)->Arg(32)->UseRealTime();

// 0-2: our kernel at that SIMD level; 3: oneDNN's NHWC Conv and the conversion to NCHW.
void BM_PointwiseHeadConv(benchmark::State& state) {
  const bool ours = state.range(0) < 3;
  const auto level = static_cast<SimdLevel>(ours ? state.range(0) : 0);
  if (level > simd_supported()) return state.SkipWithError("this CPU lacks the level");
  const SimdLevel saved = simd_level();
  set_simd_level(level);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor w(DType::kFloat32, {64, 64, 1, 1}), x(DType::kFloat32, {1, 80, 80, 64}),
      nhwc(DType::kFloat32, {1, 80, 80, 64}), y(DType::kFloat32, {1, 64, 80, 80});
  for (Tensor* t : {&w, &x})
    for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] = u(rng);
  Node n = bench_node("Conv", 1);
  n.inputs.push_back("w");
  KernelInit init{n,
                  {{DType::kFloat32, {1, 64, 80, 80}, nullptr}, {DType::kFloat32, w.shape(), &w}},
                  17,
                  Layout::kNHWC,
                  ours ? std::optional<Layout>(Layout::kPlain) : std::nullopt};
  std::unique_ptr<Kernel> k = create_kernel(init);
  for (auto _ : state) {
    if (ours) {
      k->run({&x}, {&y});
    } else {
      k->run({&x}, {&nhwc});
      nhwc_to_nchw(nhwc, y);
    }
    benchmark::DoNotOptimize(y.raw());
  }
  state.SetItemsProcessed(state.iterations() * 2 * 64 * 64 * 80 * 80);  // FLOPs
  state.SetLabel(ours ? simd_level_name(level) : "oneDNN NHWC + conversion");
  set_simd_level(saved);
}
BENCHMARK(BM_PointwiseHeadConv)->DenseRange(0, 3)->UseRealTime();

}  // namespace
}  // namespace edgeq
