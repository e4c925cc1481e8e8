#include "runtime/latency.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/percentile.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::map<std::string, Tensor> random_inputs(const Graph& g) {
  std::map<std::string, Tensor> inputs;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::set<std::string> coded;  // inputs that carry codes run as float (runtime/float_io.h)
  for (const CodedValue& c : coded_io(g))
    if (c.input) coded.insert(c.name);
  for (const auto& in : g.inputs) {
    Tensor t(coded.count(in.name) ? DType::kFloat32 : in.dtype, in.shape);
    if (t.dtype() == DType::kFloat32)
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
    inputs[in.name] = t;
  }
  return inputs;
}

LatencyResult measure_latency(Executor& ex, const std::map<std::string, Tensor>& inputs, int runs,
                              int warmup) {
  EDGEQ_CHECK(runs > 0, "latency: runs must be positive");
  LatencyResult r;
  auto t0 = std::chrono::steady_clock::now();
  ex.prepare();
  r.prepare_ms = ms_since(t0);
  for (int i = 0; i < warmup; ++i) {
    throw_if_interrupted();
    ex.run(inputs);
  }
  if (warmup > 0) ex.reset_profile();
  std::vector<double> decode_ms, graph_ms;
  for (int i = 0; i < runs; ++i) {
    throw_if_interrupted();
    auto s = std::chrono::steady_clock::now();
    ex.run(inputs);
    r.samples_ms.push_back(ms_since(s));
    decode_ms.push_back(ex.last_host_decode_ms());
    graph_ms.push_back(r.samples_ms.back() - decode_ms.back());
  }
  if (ex.raw_head()) {
    r.host_decode_median_ms = percentile(decode_ms, 50);
    r.graph_median_ms = percentile(graph_ms, 50);
  }
  r.min_ms = *std::min_element(r.samples_ms.begin(), r.samples_ms.end());
  r.median_ms = percentile(r.samples_ms, 50);
  r.p95_ms = percentile(r.samples_ms, 95);
  for (double v : r.samples_ms) r.mean_ms += v / r.samples_ms.size();
  return r;
}

}  // namespace edgeq
