// edgeq bench: latency (min / median / p95 over N runs after warm-up) and peak memory.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "cli/run_options.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/process_stats.h"
#include "core/simd.h"
#include "core/worker_threads.h"
#include "eval/summary.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"
#include "runtime/latency.h"

namespace edgeq::cli {
namespace {

struct BenchArgs {
  std::string model, json;
  RunOptions run;
  int runs = 20, warmup = 3, workers = 1;
  bool profile = false;
  LedgerArgs ledger;
};

// Time per op type, largest first, as a share of the summed step time.
void print_profile(const std::vector<StepTime>& steps, int runs) {
  std::map<std::string, std::pair<double, int>> by_op;
  double total = 0;
  for (const auto& s : steps) {
    by_op[s.op].first += s.ms / runs;
    by_op[s.op].second += 1;
    total += s.ms / runs;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> rows(by_op.begin(), by_op.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::printf("%-20s %6s %10s %7s\n", "op", "steps", "ms/run", "share");
  for (const auto& [op, v] : rows)
    std::printf("%-20s %6d %10.3f %6.1f%%\n", op.c_str(), v.second, v.first, 100 * v.first / total);
  std::vector<StepTime> top = steps;
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  top.resize(std::min<size_t>(top.size(), 40));
  std::printf("slowest steps:\n");
  for (const auto& s : top) std::printf("  %8.3f ms  %s\n", s.ms / runs, s.what.c_str());
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// --workers W: W executors run at once, each on its own thread (threads / W threads each), taking
// runs from a shared counter once all are planned and warmed up. Throughput: wall time per run.
double run_workers(const BenchArgs& a, const Graph& g, const std::map<std::string, Tensor>& inputs,
                   int threads_each) {
  std::atomic<int> ready{0}, next{0};
  std::atomic<bool> go{false};
  WorkerThreads workers(a.workers, [&](int) {
    std::unique_ptr<Executor> ex;
    try {
      ExecutorOptions opt = a.run.executor();
      opt.threads = threads_each;
      ex = std::make_unique<Executor>(g, opt);  // planned on the thread that runs it
      ex->prepare();
      for (int i = 0; i < a.warmup; ++i) ex->run(inputs);
    } catch (...) {
      ++ready;  // the others may not wait for this one
      throw;
    }
    ++ready;
    while (!go) std::this_thread::yield();
    while (next++ < a.runs) ex->run(inputs);
  });
  while (ready < a.workers) std::this_thread::yield();
  auto t0 = std::chrono::steady_clock::now();
  go = true;
  workers.join();
  const double ms = ms_since(t0);
  return ms / a.runs;
}

void run_bench(const BenchArgs& a) {
  check_distinct_files({{"--model", a.model}}, {{"--json", a.json}});
  EDGEQ_CHECK(a.runs > 0, "--runs must be positive");
  EDGEQ_CHECK(a.workers >= 1, "--workers must be at least 1");
  LedgerRecorder ledger(a.ledger);
  Graph g = load_onnx(a.model);
  const std::map<std::string, Tensor> inputs = random_inputs(g);
  if (a.workers > 1) {
    EDGEQ_CHECK(!a.profile, "--profile times one executor; use it without --workers");
    const int threads = a.run.threads > 0 ? a.run.threads : omp_get_max_threads();
    const int each = std::max(1, threads / a.workers);
    const double ms = run_workers(a, g, inputs, each);
    const size_t rss = peak_rss_bytes();
    std::printf("model %s  %d workers x %d thread%s  runs %d (+%d warm-up each)\n", a.model.c_str(),
                a.workers, each, each == 1 ? "" : "s", a.runs, a.warmup);
    std::printf("throughput: %.2f ms per run (wall time / runs)\n", ms);
    std::printf("memory: peak RSS %.1f MiB\n", rss / 1048576.0);
    const nlohmann::json j = {{"model", a.model},           {"workers", a.workers},
                              {"threads_per_worker", each}, {"runs", a.runs},
                              {"warmup", a.warmup},         {"throughput_ms_per_run", ms},
                              {"peak_rss_bytes", rss}};
    if (!a.json.empty()) write_file_atomic(a.json, json_text(j, 2) + "\n");
    ledger.record("bench", j, a.model, a.json);
    return;
  }
  ExecutorOptions opt = a.run.executor();
  opt.profile = a.profile;
  Executor ex(g, opt);
  const LatencyResult lat = measure_latency(ex, inputs, a.runs, a.warmup);
  const double prepare_ms = lat.prepare_ms, mn = lat.min_ms, med = lat.median_ms, p95 = lat.p95_ms;
  const double mean = lat.mean_ms;
  const std::vector<double>& ms = lat.samples_ms;
  print_notices(ex);
  size_t rss = peak_rss_bytes();
  if (a.profile) print_profile(ex.profile(), a.runs + a.warmup);
  std::printf("model %s  threads %d  exec %s%s%s  simd %s  runs %d (+%d warm-up)\n",
              a.model.c_str(), ex.threads(), a.run.exec.c_str(),
              a.run.emulate == "none" ? "" : "  emulate ",
              a.run.emulate == "none" ? "" : a.run.emulate.c_str(), simd_level_name(simd_level()),
              a.runs, a.warmup);
  std::printf("latency ms: min %.2f  median %.2f  p95 %.2f   (plan %.1f ms)\n", mn, med, p95,
              prepare_ms);
  std::printf("memory: peak RSS %.1f MiB, activation arena %.1f MiB, weights %.1f MiB\n",
              rss / 1048576.0, ex.arena_bytes() / 1048576.0, ex.weight_bytes() / 1048576.0);
  const IoBytes io = io_bytes(g, [&](const std::string& v) { return ex.desc(v).shape; });
  std::printf("per frame: %lld bytes in, %lld bytes out (%s)\n", static_cast<long long>(io.in),
              static_cast<long long>(io.out),
              coded_io(g).empty() ? "float I/O" : "quantized I/O: codes in and out");
  const nlohmann::json j = {{"model", a.model},
                            {"threads", ex.threads()},
                            {"exec", a.run.exec},
                            {"emulate", a.run.emulate},
                            {"simd", simd_level_name(simd_level())},
                            {"workers", 1},
                            {"runs", a.runs},
                            {"warmup", a.warmup},
                            {"min_ms", mn},
                            {"median_ms", med},
                            {"p95_ms", p95},
                            {"throughput_ms_per_run", mean},
                            {"plan_ms", prepare_ms},
                            {"peak_rss_bytes", rss},
                            {"arena_bytes", ex.arena_bytes()},
                            {"weight_bytes", ex.weight_bytes()},
                            {"input_bytes_per_frame", io.in},
                            {"output_bytes_per_frame", io.out},
                            {"samples_ms", ms}};
  if (!a.json.empty()) write_file_atomic(a.json, json_text(j, 2) + "\n");
  ledger.record("bench", j, a.model, a.json);
}

}  // namespace

void register_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Latency and memory of the FP32 (or QDQ) model");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  add_run_options(cmd, a->run);
  cmd->add_option("--runs", a->runs, "timed runs")->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--workers", a->workers,
                  "run this many executors at once (threads / workers threads each) and report "
                  "throughput instead of latency")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "also write the numbers as JSON");
  cmd->add_flag("--profile", a->profile, "time each op type (adds a little overhead)");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace edgeq::cli
