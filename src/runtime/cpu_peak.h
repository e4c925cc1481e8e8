// What this CPU's multiply-add units can do at most, measured: a short loop of the FP32 fused
// multiply-add and of the int8 dot-product instruction the executor's convolutions use, run on
// every thread at once (so at the clock the cores hold under load). `bench` sets a run against
// it: the time its convolutions' work would take at this peak, over the time it took.
//
// The loops are inline assembly with a fixed instruction count per iteration, so the work of a
// run is known exactly; their inputs are ones, so the sum of what they accumulate counts the
// multiply-adds done (tests/cpu_peak_test.cpp checks one against the other).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgeq {

// One timed loop: an instruction sequence repeated per iteration.
enum class PeakLoop {
  kFmaYmm,      // 10 x vfmadd231ps ymm (AVX2 + FMA): 80 multiply-adds
  kFmaZmm,      // 10 x vfmadd231ps zmm (AVX-512 F): 160
  kMaddubsYmm,  // 8 x (vpmaddubsw, vpmaddwd, vpaddd) ymm (AVX2): 256 u8 x s8 multiply-adds
  kMaddubsZmm,  // the same on zmm (AVX-512 BW): 512
  kVnniYmm,     // 10 x {vex} vpdpbusd ymm (AVX-VNNI): 320
  kVnniZmm,     // 10 x vpdpbusd zmm (AVX-512 VNNI): 640
};

struct PeakLoopInfo {
  const char* instruction;     // as reports name it
  int64_t macs_per_iteration;  // multiply-adds (lanes x instructions)
};
PeakLoopInfo peak_loop_info(PeakLoop loop);
// Whether this CPU can run the loop's instructions.
bool peak_loop_supported(PeakLoop loop);
// Runs `iterations` of the loop on ones and returns the sum of its accumulators: the number of
// multiply-adds it did while no float accumulator passed 2^24 (iterations up to 2^24 / 10).
// Throws edgeq::Error when the CPU cannot run it.
double run_peak_loop(PeakLoop loop, int64_t iterations);

// The loops the executor's kernels correspond to at the instruction-set level they run at (as
// capped by EDGEQ_SIMD and ONEDNN_MAX_CPU_ISA): FP32 convolutions use FMA at the lower of the two
// levels; int8 convolutions (oneDNN's) vpdpbusd where it has VNNI, else vpmaddubsw pairs.
// false where the level is below AVX2 (no loop is measured there).
bool fp32_peak_loop(PeakLoop& loop);
bool int8_peak_loop(PeakLoop& loop);

struct CpuPeak {
  int threads = 0;                                 // loops run at once, one per thread
  std::string fp32_instruction, int8_instruction;  // empty: not measured (below AVX2)
  double fp32_gflops = 0;                          // all threads together; 2 per multiply-add
  double int8_gops = 0;
};
// The peak over `threads` threads, measured on first use for that count (about 0.2 s) and kept
// for the process.
const CpuPeak& cpu_peak(int threads);

// A run's multiply-add work against the peak: `fp32_flops` and `int8_ops` (2 per multiply-add)
// over `ms`. peak_fraction = the time the work takes at the peak / ms (0 where no peak of a kind
// that has work was measured).
struct PeakUse {
  double gops = 0;           // (fp32_flops + int8_ops) / time, in G/s
  double peak_fraction = 0;  // 0..1 (about; noise can pass 1 on a tiny step)
};
PeakUse peak_use(const CpuPeak& peak, double fp32_flops, double int8_ops, double ms);

}  // namespace edgeq
