// Google Benchmark target: whole-model latency and a few hot kernels.
//   build/edgeq_bench [--benchmark_filter=...]   (EDGEQ_BENCH_MODEL=path overrides the model)
// The edgeq-vs-ORT ratio comes from scripts/bench.sh, which runs both in one go.
#include <benchmark/benchmark.h>

#include <memory>

#include "bench_util.h"
#include "runtime/executor.h"

namespace {

void BM_Model(benchmark::State& state) {
  edgeq::Graph g;
  if (!edgeq::bench::load_bench_model(state, g)) return;
  edgeq::ExecutorOptions opt;
  opt.threads = static_cast<int>(state.range(0));
  edgeq::Executor ex(g, opt);
  edgeq::Tensor x = edgeq::bench::test_image(g.inputs.at(0));
  ex.run({{g.inputs[0].name, x}});
  for (auto _ : state) benchmark::DoNotOptimize(ex.run({{g.inputs[0].name, x}}));
}
BENCHMARK(BM_Model)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// One Conv + SiLU as in YOLO11's backbone (fused, NHWC), 3x3 stride 1.
void BM_ConvSilu3x3(benchmark::State& state) {
  const int64_t c = state.range(0), hw = state.range(1);
  edgeq::Graph g;
  g.inputs.push_back({"x", edgeq::DType::kFloat32, {1, c, hw, hw}});
  g.outputs.push_back({"y", edgeq::DType::kFloat32, {1, c, hw, hw}});
  edgeq::Tensor w(edgeq::DType::kFloat32, {c, c, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float((i * 37) % 17 - 8) / 100.f;
  g.initializers["w"] = w;
  edgeq::Node conv{"conv", "Conv", "", {"x", "w"}, {"t"}, {}};
  edgeq::Attribute pads;
  pads.kind = edgeq::Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attrs["pads"] = pads;
  g.nodes.push_back(conv);
  g.nodes.push_back({"sig", "Sigmoid", "", {"t"}, {"s"}, {}});
  g.nodes.push_back({"mul", "Mul", "", {"t", "s"}, {"y"}, {}});
  edgeq::ExecutorOptions opt;
  opt.threads = 2;
  edgeq::Executor ex(g, opt);
  edgeq::Tensor x(edgeq::DType::kFloat32, {1, c, hw, hw});
  for (auto _ : state) benchmark::DoNotOptimize(ex.run({{"x", x}}));
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * c * c * 9 * hw * hw, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::OneK::kIs1000);
}
BENCHMARK(BM_ConvSilu3x3)
    ->Args({32, 160})
    ->Args({64, 80})
    ->Args({128, 40})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
