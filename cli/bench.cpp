// edgeq bench: flags -> edgeq::bench (edgeq/bench.h); prints latency (or throughput) and memory,
// with --profile the time per op type and the slowest steps.
#include "edgeq/bench.h"

#include <algorithm>
#include <iostream>

#include "commands.h"
#include "edgeq/choices.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/text.h"
#include "ledger_options.h"
#include "number_options.h"
#include "run_options.h"

namespace edgeq::cli {
namespace {

struct BenchArgs {
  std::string model, json;
  RunOptions run;
  BenchOptions o;
  LedgerArgs ledger;
};

void print_profile(const BenchReport& r) {
  double total = 0;
  for (const auto& t : r.ops) total += t.ms_per_run;
  std::printf("%-20s %6s %10s %7s\n", "op", "steps", "ms/run", "share");
  for (const auto& t : r.ops)
    std::printf("%-20s %6d %10.3f %6.1f%%\n", t.op.c_str(), t.steps, t.ms_per_run,
                100 * t.ms_per_run / total);
  constexpr size_t kSlowest = 40;  // all of them: --json
  std::printf("slowest steps:\n");
  std::printf("  (G/s and %% of peak: the step's multiply-add work against the CPU's peak)\n");
  for (size_t i = 0; i < std::min(r.steps.size(), kSlowest); ++i) {
    const auto& s = r.steps[i];
    if (s.gops > 0)
      std::printf("  %8.3f ms %7.1f G/s %4.0f%%  %s\n", s.ms_per_run, s.gops, 100 * s.peak_fraction,
                  printable(s.step).c_str());
    else
      std::printf("  %8.3f ms %19s %s\n", s.ms_per_run, "", printable(s.step).c_str());
  }
}

// The CPU's peak and what the run's multiply-add work achieved against it.
void print_peak(const BenchReport& r) {
  const auto& p = r.peak;
  if (p.fp32_instruction.empty() && p.int8_instruction.empty()) {
    std::printf("peak: not measured below AVX2\n");
    return;
  }
  std::printf("peak on %d thread%s (measured): FP32 %.1f GFLOP/s (%s), int8 %.1f GOP/s (%s)\n",
              r.threads, r.threads == 1 ? "" : "s", p.fp32_gflops, p.fp32_instruction.c_str(),
              p.int8_gops, p.int8_instruction.c_str());
  std::printf(
      "work a run: %.2f GFLOP on floats + %.2f GOP on int8 codes; at the median %.1f G/s, "
      "%.0f%% of the peak\n",
      r.fp32_gflop, r.int8_gop, r.achieved_gops, 100 * r.peak_fraction);
}

void print_bench(const BenchReport& r) {
  const double mib = 1048576.0;
  if (r.workers > 1) {
    std::printf("model %s  %d workers x %d thread%s  runs %d (+%d warm-up each)\n",
                printable(r.model).c_str(), r.workers, r.threads, r.threads == 1 ? "" : "s", r.runs,
                r.warmup);
    std::printf("throughput: %.2f ms per run (wall time / runs)\n", r.throughput_ms_per_run);
    std::printf("memory: peak RSS %.1f MiB\n", r.peak_rss_bytes / mib);
    return;
  }
  if (!r.ops.empty()) print_profile(r);
  const bool emulated = r.emulate != Int8Emulation::kNone;
  std::printf("model %s  threads %d  exec %s%s%s  simd %s  runs %d (+%d warm-up)\n",
              printable(r.model).c_str(), r.threads, std::string(name(r.exec)).c_str(),
              emulated ? "  emulate " : "", emulated ? std::string(name(r.emulate)).c_str() : "",
              r.simd.c_str(), r.runs, r.warmup);
  std::printf("latency ms: min %.2f  median %.2f  p95 %.2f   (plan %.1f ms)\n", r.min_ms,
              r.median_ms, r.p95_ms, r.plan_ms);
  if (r.host_decode_median_ms > 0)
    std::printf("raw head: graph %.2f ms + host decode %.3f ms (medians)\n", r.graph_median_ms,
                r.host_decode_median_ms);
  print_peak(r);
  std::printf("memory: peak RSS %.1f MiB, activation arena %.1f MiB, weights %.1f MiB\n",
              r.peak_rss_bytes / mib, r.arena_bytes / mib, r.weight_bytes / mib);
  std::printf("per frame: %lld bytes in, %lld bytes out (%s)\n",
              static_cast<long long>(r.input_bytes_per_frame),
              static_cast<long long>(r.output_bytes_per_frame),
              r.quantized_io ? "quantized I/O: codes in and out" : "float I/O");
}

void run_bench(BenchArgs& a) {
  a.o.exec = exec_options(a.run);
  check_distinct_files({{"--model", a.model}},
                       {{"--json", a.json, RoleFile::kText}, ledger_output(a.ledger)});
  EDGEQ_CHECK(a.o.workers == 1 || !a.o.profile,
              "--profile times one executor; use it without --workers");
  LedgerRecorder ledger(a.ledger);
  InterruptScope interrupt;  // SIGINT / SIGTERM stop before the next run, nothing written
  const BenchReport r = bench(Model::load(a.model), a.o);
  for (const std::string& line : r.notices) std::cerr << printable(line) << "\n";
  print_bench(r);
  if (!a.json.empty()) write_file_atomic(a.json, r.json + "\n");
  ledger.record("bench", r.json, a.model, a.json);
}

}  // namespace

void register_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Latency and memory of the FP32 (or QDQ) model");
  cmd->add_option("--model", a->model, "ONNX model")->required();
  add_run_options(cmd, a->run);
  add_number(cmd, "--runs", a->o.runs, ranges::kRuns, "timed runs")->capture_default_str();
  add_number(cmd, "--warmup", a->o.warmup, ranges::kWarmup, "untimed runs first")
      ->capture_default_str();
  add_number(cmd, "--workers", a->o.workers, ranges::workers(),
             "run this many executors at once (threads / workers threads each) and report "
             "throughput instead of latency")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "also write the numbers as JSON");
  cmd->add_flag("--profile", a->o.profile,
                "time each op type and step over the timed runs (adds a little overhead)");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace edgeq::cli
