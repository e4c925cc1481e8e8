// Which vector instruction set the hand-vectorized loops use, chosen at run time.
//
// The library is built for baseline x86-64 (no -march=native), so one binary runs on any x86-64
// CPU. Hot loops come in three clones of one source body: AVX-512 (F, BW, DQ, VL, CD), AVX2 and
// the baseline ("scalar"; SSE2 on x86-64). simd_level() picks the best the CPU has, or the one
// the environment variable EDGEQ_SIMD names (avx512 | avx2 | scalar). Every clone computes the
// same bits: the library is compiled with -ffp-contract=off (no fused multiply-adds), and
// reductions keep a fixed number of partial sums whatever the vector width.
#pragma once

namespace edgeq {

enum class SimdLevel { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

// The level the loops use: set_simd_level()'s, else EDGEQ_SIMD when set (an unknown name or a
// level this CPU lacks throws edgeq::Error), else the best the CPU supports.
SimdLevel simd_level();
// Makes the loops use `level` from now on (tests compare the clones in one process); throws when
// the CPU lacks it. Call it while no kernel runs.
void set_simd_level(SimdLevel level);
// The best level this CPU supports.
SimdLevel simd_supported();
const char* simd_level_name(SimdLevel level);

// Picks one of three clones of a function for simd_level().
template <typename Fn>
Fn simd_pick(Fn avx512, Fn avx2, Fn scalar) {
  switch (simd_level()) {
    case SimdLevel::kAvx512:
      return avx512;
    case SimdLevel::kAvx2:
      return avx2;
    default:
      return scalar;
  }
}

}  // namespace edgeq

#if defined(__x86_64__) || defined(__i386__)
#define EDGEQ_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,bmi,bmi2,popcnt")))
#define EDGEQ_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#else
#define EDGEQ_TARGET_AVX512
#define EDGEQ_TARGET_AVX2
#endif
#define EDGEQ_ALWAYS_INLINE inline __attribute__((always_inline))

// Defines NAME##_avx512, NAME##_avx2 and NAME##_scalar with parameter list PARAMS: each calls
// BODY ARGS, with BODY (an EDGEQ_ALWAYS_INLINE function) compiled into it for that instruction
// set. TEMPLATE is a template head (`template <int k>`) or empty.
#define EDGEQ_SIMD_CLONES(TEMPLATE, RET, NAME, BODY, PARAMS, ARGS) \
  TEMPLATE EDGEQ_TARGET_AVX512 RET NAME##_avx512 PARAMS {          \
    return BODY ARGS;                                              \
  }                                                                \
  TEMPLATE EDGEQ_TARGET_AVX2 RET NAME##_avx2 PARAMS {              \
    return BODY ARGS;                                              \
  }                                                                \
  TEMPLATE RET NAME##_scalar PARAMS {                              \
    return BODY ARGS;                                              \
  }
