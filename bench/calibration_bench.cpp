// Google Benchmark target: what calibration costs on top of a forward pass.
//   BM_CalibrateImage   one Calibrator::add (forward + statistics of every float value)
//   BM_CalibrateOverForward  a forward pass and Calibrator::add alternating in one process
//   BM_ForwardObserved  the same forward with a no-op hook on every value (no statistics)
//   BM_HistogramAdd     Histogram::add on n Gaussian-like values, every value or sampled
// Compare BM_CalibrateImage with BM_Model/2 (model_bench.cpp) for the calibration overhead.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "bench_util.h"
#include "calib/calibrator.h"
#include "calib/histogram.h"
#include "runtime/executor.h"

namespace {

void BM_CalibrateImage(benchmark::State& state) {
  edgeq::Graph g;
  if (!edgeq::bench::load_bench_model(state, g)) return;
  edgeq::CalibratorOptions opt;
  opt.executor.threads = static_cast<int>(state.range(0));
  opt.histogram_stride = static_cast<int>(state.range(1));
  edgeq::Tensor x = edgeq::bench::test_image(g.inputs.at(0));
  const std::string name = g.inputs[0].name;
  edgeq::Calibrator cal(std::move(g), "", "", opt);
  cal.add({{name, x}});
  for (auto _ : state) cal.add({{name, x}});
}
// Args: threads, histogram stride (1: every value binned).
BENCHMARK(BM_CalibrateImage)
    ->Args({2, 64})
    ->Args({2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Forward pass and Calibrator::add alternating image by image in one process, so that both see
// the same machine (a busy 2-core machine drifts by 10% between runs). Counters: the mean of each
// (ms) and calibrate / forward. The wall time per iteration is the two together.
void BM_CalibrateOverForward(benchmark::State& state) {
  edgeq::Graph g;
  if (!edgeq::bench::load_bench_model(state, g)) return;
  edgeq::CalibratorOptions opt;
  opt.executor.threads = static_cast<int>(state.range(0));
  edgeq::Tensor x = edgeq::bench::test_image(g.inputs.at(0));
  const std::string name = g.inputs[0].name;
  edgeq::Executor ex(g, opt.executor);
  edgeq::Calibrator cal(std::move(g), "", "", opt);
  ex.run({{name, x}});
  cal.add({{name, x}});
  double forward_s = 0, calibrate_s = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(ex.run({{name, x}}));
    auto t1 = std::chrono::steady_clock::now();
    cal.add({{name, x}});
    auto t2 = std::chrono::steady_clock::now();
    forward_s += std::chrono::duration<double>(t1 - t0).count();
    calibrate_s += std::chrono::duration<double>(t2 - t1).count();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["forward_ms"] = 1e3 * forward_s / n;
  state.counters["calibrate_ms"] = 1e3 * calibrate_s / n;
  state.counters["ratio"] = calibrate_s / forward_s;
}
// Arg: threads.
BENCHMARK(BM_CalibrateOverForward)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ForwardObserved(benchmark::State& state) {
  edgeq::Graph g;
  if (!edgeq::bench::load_bench_model(state, g)) return;
  edgeq::ExecutorOptions opt;
  opt.threads = static_cast<int>(state.range(0));
  edgeq::Tensor x = edgeq::bench::test_image(g.inputs.at(0));
  const std::string name = g.inputs[0].name;
  edgeq::Executor ex(std::move(g), opt);
  int64_t seen = 0;
  ex.add_hook(
      "*", [&](const std::string&, const edgeq::Tensor& t) { seen += t.numel(); },
      edgeq::HookView::kAsStored);
  ex.run({{name, x}});
  for (auto _ : state) benchmark::DoNotOptimize(ex.run({{name, x}}));
  state.counters["values"] = static_cast<double>(seen) / (state.iterations() + 1);
}
BENCHMARK(BM_ForwardObserved)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HistogramAdd(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int stride = static_cast<int>(state.range(1));
  std::vector<float> v(n);
  uint64_t s = 88172645463325252ull;
  for (auto& f : v) {  // sum of uniforms: roughly Gaussian, with a long-ish tail
    float acc = 0;
    for (int k = 0; k < 4; ++k) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      acc += float(s >> 40) / float(1 << 24);
    }
    f = (acc - 2.f) * 3.f;
  }
  edgeq::Histogram h;
  for (auto _ : state) h.add(v.data(), n, stride);
  state.SetItemsProcessed(state.iterations() * n);
}
// Args: values, histogram stride.
BENCHMARK(BM_HistogramAdd)->ArgsProduct({{25600, 409600, 1638400}, {1, 64}})->UseRealTime();

}  // namespace
