// Inner loops at each SIMD level this CPU has (core/simd.h): the byte table lookup of the int8
// kernels (QLut, Concat re-encoding) over a 160x160x32 activation's bytes, and the NHWC -> NCHW
// layout conversion of a float head output (yolo11n-pose's 80x80 boxes-and-score Concat, 65
// channels; one thread).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/simd.h"
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

}  // namespace
}  // namespace edgeq
