#include "core/simd.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "core/error.h"

namespace edgeq {
namespace {

SimdLevel detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("bmi2"))
    return SimdLevel::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return SimdLevel::kAvx2;
#endif
  return SimdLevel::kScalar;
}

// EDGEQ_SIMD, else the best level.
SimdLevel choose() {
  const SimdLevel best = simd_supported();
  const char* env = std::getenv("EDGEQ_SIMD");
  if (!env || !*env) return best;
  const std::string want = env;
  for (SimdLevel l : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (want != simd_level_name(l)) continue;
    EDGEQ_CHECK(l <= best, "EDGEQ_SIMD=", want, ": this CPU supports at most ",
                simd_level_name(best));
    return l;
  }
  fail("EDGEQ_SIMD=", want, ": unknown (avx512, avx2 or scalar)");
}

}  // namespace

SimdLevel simd_supported() {
  static const SimdLevel best = detect();
  return best;
}

namespace {
std::atomic<int> chosen{-1};  // a SimdLevel once decided
}  // namespace

SimdLevel simd_level() {
  int level = chosen.load(std::memory_order_relaxed);
  if (level < 0) {
    level = static_cast<int>(choose());
    chosen.store(level, std::memory_order_relaxed);
  }
  return static_cast<SimdLevel>(level);
}

void set_simd_level(SimdLevel level) {
  EDGEQ_CHECK(level <= simd_supported(), "SIMD level ", simd_level_name(level),
              ": this CPU supports at most ", simd_level_name(simd_supported()));
  chosen.store(static_cast<int>(level), std::memory_order_relaxed);
}

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512:
      return "avx512";
    case SimdLevel::kAvx2:
      return "avx2";
    default:
      return "scalar";
  }
}

}  // namespace edgeq
