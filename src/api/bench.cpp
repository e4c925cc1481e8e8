// bench: one executor's latency (runtime/latency.h), or several executors at once for throughput.
#include "edgeq/bench.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "api/api_impl.h"
#include "api/exec_options.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/option_range.h"
#include "core/process_stats.h"
#include "core/simd.h"
#include "core/worker_threads.h"
#include "runtime/cpu_peak.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"
#include "runtime/latency.h"

namespace edgeq {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// `workers` executors at once, each planned and warmed up on its own thread, then taking runs from
// a shared counter. Wall time per run.
double run_workers(const Graph& g, const std::map<std::string, Tensor>& inputs, ExecutorOptions opt,
                   const BenchOptions& o) {
  std::atomic<int> ready{0}, next{0};
  std::atomic<bool> go{false};
  WorkerThreads workers(o.workers, [&](int) {
    std::unique_ptr<Executor> ex;
    try {
      ex = std::make_unique<Executor>(g, opt);  // planned on the thread that runs it
      ex->prepare();
      for (int i = 0; i < o.warmup; ++i) {
        throw_if_interrupted();
        ex->run(inputs);
      }
    } catch (...) {
      ++ready;  // the others may not wait for this one
      throw;
    }
    ++ready;
    while (!go) std::this_thread::yield();
    while (next++ < o.runs) {
      throw_if_interrupted();
      ex->run(inputs);
    }
  });
  while (ready < o.workers) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go = true;
  workers.join();
  return ms_since(t0) / o.runs;
}

// The run's multiply-add work against the CPU's peak over its threads (runtime/cpu_peak.h).
void add_peak_use(const std::vector<StepTime>& steps, int threads, BenchReport& r) {
  const CpuPeak& p = cpu_peak(threads);
  r.peak = {p.fp32_instruction, p.int8_instruction, p.fp32_gflops, p.int8_gops};
  double fp32 = 0, int8 = 0;
  for (const StepTime& s : steps) (s.int8 ? int8 : fp32) += double(s.flops);
  r.fp32_gflop = fp32 / 1e9, r.int8_gop = int8 / 1e9;
  const PeakUse u = peak_use(p, fp32, int8, r.median_ms);
  r.achieved_gops = u.gops, r.peak_fraction = u.peak_fraction;
}

// Time per run of each op type (largest first) and of each step (slowest first); steps with
// multiply-add work also against the peak.
void add_profile(const std::vector<StepTime>& steps, int runs, BenchReport& r) {
  std::map<std::string, BenchReport::OpTime> by_op;
  for (const StepTime& s : steps) {
    BenchReport::OpTime& t = by_op[s.op];
    t.op = s.op;
    t.ms_per_run += s.ms / runs;
    t.steps += 1;
  }
  for (const auto& [op, t] : by_op) r.ops.push_back(t);
  std::stable_sort(r.ops.begin(), r.ops.end(),
                   [](const auto& a, const auto& b) { return a.ms_per_run > b.ms_per_run; });
  const CpuPeak& p = cpu_peak(r.threads);
  for (const StepTime& s : steps) {
    const double ms = s.ms / runs;
    PeakUse u;
    if (s.flops > 0)
      u = peak_use(p, s.int8 ? 0 : double(s.flops), s.int8 ? double(s.flops) : 0, ms);
    r.steps.push_back({s.what, ms, u.gops, u.peak_fraction});
  }
  std::stable_sort(r.steps.begin(), r.steps.end(),
                   [](const auto& a, const auto& b) { return a.ms_per_run > b.ms_per_run; });
}

// The profile as JSON: {"ops": [{op, steps, ms_per_run}], "steps": [{step, ms_per_run}]}.
nlohmann::json profile_json(const BenchReport& r) {
  nlohmann::json ops = nlohmann::json::array(), steps = nlohmann::json::array();
  for (const auto& t : r.ops)
    ops.push_back({{"op", t.op}, {"steps", t.steps}, {"ms_per_run", t.ms_per_run}});
  for (const auto& s : r.steps) {
    nlohmann::json step = {{"step", s.step}, {"ms_per_run", s.ms_per_run}};
    if (s.gops > 0) step["gops"] = s.gops, step["peak_fraction"] = s.peak_fraction;
    steps.push_back(step);
  }
  return {{"ops", ops}, {"steps", steps}};
}

// What every report names: the model, the options, the SIMD level.
BenchReport report_for(const Model& model, const BenchOptions& o) {
  BenchReport r;
  r.model = model.name(), r.workers = o.workers;
  r.exec = o.exec.mode, r.emulate = o.exec.emulate, r.simd = simd_level_name(simd_level());
  r.runs = o.runs, r.warmup = o.warmup;
  return r;
}

BenchReport bench_workers(const Model& model, const Graph& g,
                          const std::map<std::string, Tensor>& inputs, ExecutorOptions opt,
                          const BenchOptions& o) {
  EDGEQ_CHECK(!o.profile, "profile times one executor; use it with one worker");
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  opt.threads = std::max(1, threads / o.workers);
  BenchReport r = report_for(model, o);
  r.threads = opt.threads;
  r.throughput_ms_per_run = run_workers(g, inputs, opt, o);
  r.peak_rss_bytes = peak_rss_bytes();
  const nlohmann::json j = {{"model", r.model},
                            {"workers", r.workers},
                            {"threads_per_worker", r.threads},
                            {"runs", r.runs},
                            {"warmup", r.warmup},
                            {"throughput_ms_per_run", r.throughput_ms_per_run},
                            {"peak_rss_bytes", r.peak_rss_bytes}};
  r.json = json_text(j, 2);
  return r;
}

}  // namespace

BenchReport bench(const Model& model, const BenchOptions& o) {
  check_option("runs", o.runs, ranges::kRuns);
  check_option("warmup", o.warmup, ranges::kWarmup);
  check_option("workers", o.workers, ranges::workers());
  const Graph& g = impl_of(model).graph;
  ExecutorOptions opt = executor_options(o.exec);
  const std::map<std::string, Tensor> inputs = random_inputs(g);
  if (o.workers > 1) return bench_workers(model, g, inputs, opt, o);

  opt.profile = o.profile;
  // The peak first, before the executor's threads exist to compete with its loops.
  cpu_peak(opt.threads > 0 ? opt.threads : omp_get_max_threads());
  Executor ex(g, opt);
  const LatencyResult lat = measure_latency(ex, inputs, o.runs, o.warmup);
  BenchReport r = report_for(model, o);
  r.notices = ex.notices();
  r.peak_rss_bytes = peak_rss_bytes();
  r.threads = ex.threads();
  r.min_ms = lat.min_ms, r.median_ms = lat.median_ms, r.p95_ms = lat.p95_ms;
  const std::vector<StepTime> steps = ex.profile();
  add_peak_use(steps, r.threads, r);
  if (o.profile) add_profile(steps, o.runs, r);
  r.plan_ms = lat.prepare_ms, r.throughput_ms_per_run = lat.mean_ms;
  r.samples_ms = lat.samples_ms;
  r.host_decode_median_ms = lat.host_decode_median_ms, r.graph_median_ms = lat.graph_median_ms;
  r.arena_bytes = ex.arena_bytes(), r.weight_bytes = ex.weight_bytes();
  const IoBytes io = io_bytes(g, [&](const std::string& v) { return ex.desc(v).shape; });
  r.input_bytes_per_frame = io.in, r.output_bytes_per_frame = io.out;
  r.quantized_io = !coded_io(g).empty();
  nlohmann::json j = {{"model", r.model},
                      {"threads", r.threads},
                      {"exec", std::string(name(r.exec))},
                      {"emulate", std::string(name(r.emulate))},
                      {"simd", r.simd},
                      {"workers", 1},
                      {"runs", r.runs},
                      {"warmup", r.warmup},
                      {"min_ms", r.min_ms},
                      {"median_ms", r.median_ms},
                      {"p95_ms", r.p95_ms},
                      {"throughput_ms_per_run", r.throughput_ms_per_run},
                      {"plan_ms", r.plan_ms},
                      {"peak_rss_bytes", r.peak_rss_bytes},
                      {"arena_bytes", r.arena_bytes},
                      {"weight_bytes", r.weight_bytes},
                      {"input_bytes_per_frame", r.input_bytes_per_frame},
                      {"output_bytes_per_frame", r.output_bytes_per_frame},
                      {"samples_ms", r.samples_ms},
                      {"work", {{"fp32_gflop", r.fp32_gflop}, {"int8_gop", r.int8_gop}}},
                      // measured: varies from run to run like the times
                      {"peak",
                       {{"threads", r.threads},
                        {"fp32_instruction", r.peak.fp32_instruction},
                        {"fp32_gflops", r.peak.fp32_gflops},
                        {"int8_instruction", r.peak.int8_instruction},
                        {"int8_gops", r.peak.int8_gops},
                        {"achieved_gops", r.achieved_gops},
                        {"fraction", r.peak_fraction}}}};
  if (ex.raw_head()) {
    j["graph_median_ms"] = r.graph_median_ms;
    j["host_decode_median_ms"] = r.host_decode_median_ms;
  }
  if (o.profile) j["profile"] = profile_json(r);
  r.json = json_text(j, 2);
  return r;
}

}  // namespace edgeq
