// Latency and memory of a model on edgeq's executor: untimed warm-up runs, then timed runs on
// deterministic random inputs (min / median / p95), peak memory and the bytes each frame carries
// in and out; or, with several workers, the throughput of executors running at once. What
// `edgeq bench` runs and prints.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgeq/exec_options.h"
#include "edgeq/model.h"

namespace edgeq {

struct BenchOptions {
  ExecOptions exec;  // exec, emulate, threads (0: all cores, shared by the workers)
  int runs = 20;     // timed runs (in all, over the workers)
  int warmup = 3;    // untimed runs first (each worker)
  // More than 1: this many executors at once on their own threads (threads / workers threads
  // each), taking runs from a shared counter; the report's throughput is wall time per run.
  int workers = 1;
  bool profile = false;  // time each step (one worker only; adds a little overhead)
};

struct BenchReport {
  std::string model;             // Model::name()
  int workers = 1, threads = 0;  // threads: the executor's, or each worker's
  ExecMode exec = ExecMode::kSimulate;
  Int8Emulation emulate = Int8Emulation::kNone;
  std::string simd;
  int runs = 0, warmup = 0;
  // One worker: latency of the timed runs, and planning time.
  double min_ms = 0, median_ms = 0, p95_ms = 0, plan_ms = 0;
  std::vector<double> samples_ms;
  double throughput_ms_per_run = 0;  // wall time / runs (workers), or the mean latency
  // One worker, a raw-head model (cut_model, arm head): the host decode's median time per run
  // (included in the latency above) and the graph's median without it; 0 for other models.
  double host_decode_median_ms = 0, graph_median_ms = 0;
  // One worker: the CPU's peak over the run's threads, measured once per process (a short loop
  // of the FP32 fused multiply-add and of the int8 dot-product instruction the executor's
  // convolutions use, on every thread at once); an instruction left empty was not measured
  // (below AVX2).
  struct Peak {
    std::string fp32_instruction, int8_instruction;
    double fp32_gflops = 0, int8_gops = 0;  // all threads together; 2 ops per multiply-add
  } peak;
  // One worker: the run's multiply-add work (convolutions, MatMul, Gemm; 2 ops per multiply-add)
  // on floats and on 8-bit codes, in G ops a run; what it achieved at the median latency (G ops/s)
  // and the time that work would take at the peak over the median (0..1; 0 where no peak was
  // measured for work the run has).
  double fp32_gflop = 0, int8_gop = 0;
  double achieved_gops = 0, peak_fraction = 0;
  uint64_t peak_rss_bytes = 0, arena_bytes = 0, weight_bytes = 0;  // arena, weights: one worker
  int64_t input_bytes_per_frame = 0, output_bytes_per_frame = 0;   // one worker
  bool quantized_io = false;  // codes in and out (a model written with quantize_io)
  // With profile: time per run (timed runs only) of each op type (largest first) and of each
  // step (slowest first; all of them).
  struct OpTime {
    std::string op;
    int steps = 0;
    double ms_per_run = 0;
  };
  std::vector<OpTime> ops;
  struct StepTime {
    std::string step;
    double ms_per_run = 0;
    // Steps with multiply-add work: G ops/s and the share of the peak (as for the run), 0 else.
    double gops = 0, peak_fraction = 0;
  };
  std::vector<StepTime> steps;
  std::vector<std::string> notices;  // what the planner chose to tell
  std::string json;                  // the numbers as `edgeq bench --json` writes them
};

// Throws edgeq::Error for options out of range or a model the executor cannot run.
BenchReport bench(const Model& model, const BenchOptions& options = {});

}  // namespace edgeq
