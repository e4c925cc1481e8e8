#include "runtime/cpu_peak.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "core/error.h"
#include "core/simd.h"
#include "core/worker_threads.h"

namespace edgeq {
namespace {

#if defined(__x86_64__)
// Register names of one width; the loops are written once for both.
#define EDGEQ_R(w, n) "%%" w #n
#define EDGEQ_FMA(w, n) "vfmadd231ps " EDGEQ_R(w, 15) ", " EDGEQ_R(w, 15) ", " EDGEQ_R(w, n) "\n\t"
#define EDGEQ_STORE(w, n, at) "vmovups " EDGEQ_R(w, n) ", " #at "(%[out])\n\t"
// One unit of the pair path: products of ones (u8 x s8) summed in int16 pairs, widened to int32
// pairs by vpmaddwd with int16 ones, added to accumulator `acc`.
#define EDGEQ_MADDUBS(w, t, acc) \
  "vpmaddubsw " EDGEQ_R(w, 15) ", " EDGEQ_R(w, 15) ", " EDGEQ_R(w, t) "\n\t" \
  "vpmaddwd " EDGEQ_R(w, 14) ", " EDGEQ_R(w, t) ", " EDGEQ_R(w, t) "\n\t"    \
  "vpaddd " EDGEQ_R(w, t) ", " EDGEQ_R(w, acc) ", " EDGEQ_R(w, acc) "\n\t"
#define EDGEQ_ZERO(n) "vpxor %%xmm" #n ", %%xmm" #n ", %%xmm" #n "\n\t"  // VEX: the whole register
// clang-format off
#define EDGEQ_ZERO_ACC                                                        \
  EDGEQ_ZERO(0) EDGEQ_ZERO(1) EDGEQ_ZERO(2) EDGEQ_ZERO(3) EDGEQ_ZERO(4)       \
  EDGEQ_ZERO(5) EDGEQ_ZERO(6) EDGEQ_ZERO(7) EDGEQ_ZERO(8) EDGEQ_ZERO(9)       \
  EDGEQ_ZERO(10) EDGEQ_ZERO(11)
// clang-format on
#define EDGEQ_X10(M, w) \
  M(w, 0) M(w, 1) M(w, 2) M(w, 3) M(w, 4) M(w, 5) M(w, 6) M(w, 7) M(w, 8) M(w, 9)
#define EDGEQ_STORE10(w, W) \
  EDGEQ_STORE(w, 0, 0)      \
  EDGEQ_STORE(w, 1, W * 1)  \
  EDGEQ_STORE(w, 2, W * 2)  \
  EDGEQ_STORE(w, 3, W * 3)  \
  EDGEQ_STORE(w, 4, W * 4)  \
  EDGEQ_STORE(w, 5, W * 5)  \
  EDGEQ_STORE(w, 6, W * 6)  \
  EDGEQ_STORE(w, 7, W * 7) EDGEQ_STORE(w, 8, W * 8) EDGEQ_STORE(w, 9, W * 9)
#define EDGEQ_STORE_ACC8(w, W) \
  EDGEQ_STORE(w, 4, 0)         \
  EDGEQ_STORE(w, 5, W * 1)     \
  EDGEQ_STORE(w, 6, W * 2)     \
  EDGEQ_STORE(w, 7, W * 3)     \
  EDGEQ_STORE(w, 8, W * 4)     \
  EDGEQ_STORE(w, 9, W * 5) EDGEQ_STORE(w, 10, W * 6) EDGEQ_STORE(w, 11, W * 7)
#define EDGEQ_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc"

// The loops' inputs: ones of each type, at the offsets the assembly reads them from.
struct PeakOnes {
  float f32 = 1.f;  // 0(%[ones])
  int8_t s8 = 1;    // 4(%[ones])
  int16_t s16 = 1;  // 6(%[ones])
};
static_assert(offsetof(PeakOnes, s8) == 4 && offsetof(PeakOnes, s16) == 6, "the loops' offsets");

// One loop: accumulators zeroed, `setup` (the inputs broadcast), `n` iterations of `body`,
// `store` (the accumulators to `out`: 10 or 8 vectors).
#define EDGEQ_PEAK_LOOP(name, setup, body, store)                                      \
  void name(int64_t n, const PeakOnes* ones, void* out) {                              \
    __asm__ volatile(EDGEQ_ZERO_ACC setup "1:\n\t" body "dec %[n]\n\tjnz 1b\n\t" store \
                                          "vzeroupper\n\t"                             \
                     : [n] "+r"(n)                                                     \
                     : [ones] "r"(ones), [out] "r"(out)                                \
                     : EDGEQ_CLOBBERS);                                                \
  }
#define EDGEQ_ONES_F32(w) "vbroadcastss (%[ones]), %%" w "15\n\t"
#define EDGEQ_ONES_S8_S16(w) \
  "vpbroadcastb 4(%[ones]), %%" w "15\n\tvpbroadcastw 6(%[ones]), %%" w "14\n\t"
#define EDGEQ_MADDUBS8(w) \
  EDGEQ_MADDUBS(w, 0, 4)  \
  EDGEQ_MADDUBS(w, 1, 5)  \
  EDGEQ_MADDUBS(w, 2, 6)  \
  EDGEQ_MADDUBS(w, 3, 7)  \
  EDGEQ_MADDUBS(w, 0, 8) EDGEQ_MADDUBS(w, 1, 9) EDGEQ_MADDUBS(w, 2, 10) EDGEQ_MADDUBS(w, 3, 11)
#define EDGEQ_VNNI_VEX(w, n) \
  "%{vex%} vpdpbusd " EDGEQ_R(w, 15) ", " EDGEQ_R(w, 15) ", " EDGEQ_R(w, n) "\n\t"
#define EDGEQ_VNNI(w, n) "vpdpbusd " EDGEQ_R(w, 15) ", " EDGEQ_R(w, 15) ", " EDGEQ_R(w, n) "\n\t"

EDGEQ_PEAK_LOOP(fma_ymm, EDGEQ_ONES_F32("ymm"), EDGEQ_X10(EDGEQ_FMA, "ymm"),
                EDGEQ_STORE10("ymm", 32))
EDGEQ_PEAK_LOOP(fma_zmm, EDGEQ_ONES_F32("zmm"), EDGEQ_X10(EDGEQ_FMA, "zmm"),
                EDGEQ_STORE10("zmm", 64))
EDGEQ_PEAK_LOOP(maddubs_ymm, EDGEQ_ONES_S8_S16("ymm"), EDGEQ_MADDUBS8("ymm"),
                EDGEQ_STORE_ACC8("ymm", 32))
EDGEQ_PEAK_LOOP(maddubs_zmm, EDGEQ_ONES_S8_S16("zmm"), EDGEQ_MADDUBS8("zmm"),
                EDGEQ_STORE_ACC8("zmm", 64))
EDGEQ_PEAK_LOOP(vnni_ymm, EDGEQ_ONES_S8_S16("ymm"), EDGEQ_X10(EDGEQ_VNNI_VEX, "ymm"),
                EDGEQ_STORE10("ymm", 32))
EDGEQ_PEAK_LOOP(vnni_zmm, EDGEQ_ONES_S8_S16("zmm"), EDGEQ_X10(EDGEQ_VNNI, "zmm"),
                EDGEQ_STORE10("zmm", 64))
#endif

#if defined(__x86_64__)
// AVX-VNNI (the VEX vpdpbusd): CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14 has no
// __builtin_cpu_supports name for it). The OS's AVX state is what AVX2's check already covers.
bool cpu_has_avx_vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  return (eax >> 4) & 1u;
}
#endif

bool isa_has(dnnl::cpu_isa isa, dnnl::cpu_isa level) {
  const auto have = static_cast<unsigned>(isa), want = static_cast<unsigned>(level);
  return (have & want) == want;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Multiply-adds a second on `threads` threads at once, the best of three rounds of about 20 ms.
// The threads start together (they wait for each other first) and each times its own loop, so
// thread start-up is not counted; the round's rate is the sum of theirs.
double measure_macs_per_s(PeakLoop loop, int threads) {
  const int64_t per_iteration = peak_loop_info(loop).macs_per_iteration;
  int64_t n = 20000;
  auto t0 = std::chrono::steady_clock::now();
  run_peak_loop(loop, n);  // one thread, to size the rounds
  const double s = std::max(seconds_since(t0), 1e-6);
  n = std::max<int64_t>(n, static_cast<int64_t>(n * 0.02 / s));
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> waiting{threads};
    std::vector<double> rate(size_t(threads), 0.0);
    run_workers(threads, [&](int t) {
      --waiting;
      while (waiting.load() > 0) {
      }
      const auto start = std::chrono::steady_clock::now();
      run_peak_loop(loop, n);
      rate[size_t(t)] = double(n) * double(per_iteration) / seconds_since(start);
    });
    double sum = 0;
    for (double r : rate) sum += r;
    best = std::max(best, sum);
  }
  return best;
}

}  // namespace

PeakLoopInfo peak_loop_info(PeakLoop loop) {
  switch (loop) {
    case PeakLoop::kFmaYmm:
      return {"vfmadd231ps ymm", 10 * 8};
    case PeakLoop::kFmaZmm:
      return {"vfmadd231ps zmm", 10 * 16};
    case PeakLoop::kMaddubsYmm:
      return {"vpmaddubsw + vpmaddwd + vpaddd ymm", 8 * 32};
    case PeakLoop::kMaddubsZmm:
      return {"vpmaddubsw + vpmaddwd + vpaddd zmm", 8 * 64};
    case PeakLoop::kVnniYmm:
      return {"vpdpbusd ymm (AVX-VNNI)", 10 * 32};
    case PeakLoop::kVnniZmm:
      return {"vpdpbusd zmm", 10 * 64};
  }
  return {"", 0};
}

bool peak_loop_supported(PeakLoop loop) {
#if defined(__x86_64__)
  switch (loop) {
    case PeakLoop::kFmaYmm:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case PeakLoop::kFmaZmm:
      return __builtin_cpu_supports("avx512f");
    case PeakLoop::kMaddubsYmm:
      return __builtin_cpu_supports("avx2");
    case PeakLoop::kMaddubsZmm:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    case PeakLoop::kVnniYmm:
      return __builtin_cpu_supports("avx2") && cpu_has_avx_vnni();
    case PeakLoop::kVnniZmm:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
  }
#endif
  (void)loop;
  return false;
}

double run_peak_loop(PeakLoop loop, int64_t iterations) {
  EDGEQ_CHECK(peak_loop_supported(loop), "this CPU cannot run ", peak_loop_info(loop).instruction);
  EDGEQ_CHECK(iterations >= 1, "a peak loop needs at least one iteration");
#if defined(__x86_64__)
  static const PeakOnes ones;
  alignas(64) union {
    float f[10 * 16];
    int32_t i[10 * 16];
  } acc{};
  const bool floats = loop == PeakLoop::kFmaYmm || loop == PeakLoop::kFmaZmm;
  const bool zmm =
      loop == PeakLoop::kFmaZmm || loop == PeakLoop::kMaddubsZmm || loop == PeakLoop::kVnniZmm;
  const int vectors = loop == PeakLoop::kMaddubsYmm || loop == PeakLoop::kMaddubsZmm ? 8 : 10;
  const int lanes = zmm ? 16 : 8;
  void (*const run)(int64_t, const PeakOnes*, void*) = loop == PeakLoop::kFmaYmm       ? fma_ymm
                                                       : loop == PeakLoop::kFmaZmm     ? fma_zmm
                                                       : loop == PeakLoop::kMaddubsYmm ? maddubs_ymm
                                                       : loop == PeakLoop::kMaddubsZmm ? maddubs_zmm
                                                       : loop == PeakLoop::kVnniYmm    ? vnni_ymm
                                                                                       : vnni_zmm;
  run(iterations, &ones, &acc);
  double sum = 0;
  for (int k = 0; k < vectors * lanes; ++k) sum += floats ? double(acc.f[k]) : double(acc.i[k]);
  return sum;
#else
  return 0;
#endif
}

bool fp32_peak_loop(PeakLoop& loop) {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  const SimdLevel simd = simd_level();
  if (simd == SimdLevel::kAvx512 && isa_has(isa, dnnl::cpu_isa::avx512_core) &&
      peak_loop_supported(PeakLoop::kFmaZmm))
    return loop = PeakLoop::kFmaZmm, true;
  if (simd >= SimdLevel::kAvx2 && isa_has(isa, dnnl::cpu_isa::avx2) &&
      peak_loop_supported(PeakLoop::kFmaYmm))
    return loop = PeakLoop::kFmaYmm, true;
  return false;
}

bool int8_peak_loop(PeakLoop& loop) {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  const std::pair<dnnl::cpu_isa, PeakLoop> levels[] = {
      {dnnl::cpu_isa::avx512_core_vnni, PeakLoop::kVnniZmm},
      {dnnl::cpu_isa::avx512_core, PeakLoop::kMaddubsZmm},
      {dnnl::cpu_isa::avx2_vnni, PeakLoop::kVnniYmm},
      {dnnl::cpu_isa::avx2, PeakLoop::kMaddubsYmm}};
  for (const auto& [level, l] : levels)
    if (isa_has(isa, level) && peak_loop_supported(l)) return loop = l, true;
  return false;
}

const CpuPeak& cpu_peak(int threads) {
  static std::mutex m;
  static std::map<int, CpuPeak> measured;
  threads = std::max(1, threads);
  std::lock_guard<std::mutex> lock(m);
  auto it = measured.find(threads);
  if (it != measured.end()) return it->second;
  CpuPeak p;
  p.threads = threads;
  PeakLoop loop;
  if (fp32_peak_loop(loop)) {
    p.fp32_instruction = peak_loop_info(loop).instruction;
    p.fp32_gflops = 2 * measure_macs_per_s(loop, threads) / 1e9;
  }
  if (int8_peak_loop(loop)) {
    p.int8_instruction = peak_loop_info(loop).instruction;
    p.int8_gops = 2 * measure_macs_per_s(loop, threads) / 1e9;
  }
  return measured.emplace(threads, p).first->second;
}

PeakUse peak_use(const CpuPeak& peak, double fp32_flops, double int8_ops, double ms) {
  PeakUse u;
  if (ms <= 0) return u;
  u.gops = (fp32_flops + int8_ops) / (ms * 1e6);
  const bool fp32_known = fp32_flops <= 0 || peak.fp32_gflops > 0;
  const bool int8_known = int8_ops <= 0 || peak.int8_gops > 0;
  if (!fp32_known || !int8_known || fp32_flops + int8_ops <= 0) return u;
  double at_peak_ms = 0;
  if (fp32_flops > 0) at_peak_ms += fp32_flops / (peak.fp32_gflops * 1e6);
  if (int8_ops > 0) at_peak_ms += int8_ops / (peak.int8_gops * 1e6);
  u.peak_fraction = at_peak_ms / ms;
  return u;
}

}  // namespace edgeq
