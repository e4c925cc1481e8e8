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

// The same Conv + SiLU as a W8A16 QDQ model writes it (uint16 Q -> DQ after the Conv, the Sigmoid
// and the Mul): arg 2 = 1 runs it folded (fake-quant steps fused into the kernels), 0 runs every
// Q and DQ as its own op.
void BM_ConvSiluQdq3x3(benchmark::State& state) {
  const int64_t c = state.range(0), hw = state.range(1);
  edgeq::Graph g;
  g.set_opset("com.microsoft", 1);
  g.inputs.push_back({"x", edgeq::DType::kFloat32, {1, c, hw, hw}});
  g.outputs.push_back({"y", edgeq::DType::kFloat32, {1, c, hw, hw}});
  edgeq::Tensor w(edgeq::DType::kFloat32, {c, c, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float((i * 37) % 17 - 8) / 100.f;
  g.initializers["w"] = w;
  edgeq::Node conv{"conv", "Conv", "", {"x", "w"}, {"t0"}, {}};
  edgeq::Attribute pads;
  pads.kind = edgeq::Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attrs["pads"] = pads;
  g.nodes.push_back(conv);
  auto qdq = [&](const std::string& in, const std::string& out, float scale, uint16_t zp) {
    g.initializers[in + "_s"] = edgeq::Tensor::from_vector<float>({}, {scale});
    g.initializers[in + "_z"] = edgeq::Tensor::from_vector<uint16_t>({}, {zp});
    g.nodes.push_back({in + "_q",
                       "QuantizeLinear",
                       "com.microsoft",
                       {in, in + "_s", in + "_z"},
                       {in + "_codes"},
                       {}});
    g.nodes.push_back({in + "_dq",
                       "DequantizeLinear",
                       "com.microsoft",
                       {in + "_codes", in + "_s", in + "_z"},
                       {out},
                       {}});
  };
  qdq("t0", "t", 4e-4f, 40000);
  g.nodes.push_back({"sig", "Sigmoid", "", {"t"}, {"s0"}, {}});
  qdq("s0", "s", 1.f / 65535, 0);
  g.nodes.push_back({"mul", "Mul", "", {"t", "s"}, {"y0"}, {}});
  qdq("y0", "y", 3e-4f, 2000);
  edgeq::ExecutorOptions opt;
  opt.threads = 2;
  opt.fold_qdq = state.range(2) != 0;
  edgeq::Executor ex(g, opt);
  edgeq::Tensor x = edgeq::bench::test_image(g.inputs[0]);
  for (auto _ : state) benchmark::DoNotOptimize(ex.run({{"x", x}}));
}
BENCHMARK(BM_ConvSiluQdq3x3)
    ->ArgsProduct({{32}, {160}, {0, 1}})
    ->Args({64, 80, 1})
    ->Args({128, 40, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
