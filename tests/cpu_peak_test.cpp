// The CPU peak bench measures (runtime/cpu_peak.h): its loops do exactly the instructions they
// are said to (counted by their own arithmetic, not by a clock), the work the profile counts per
// step, and the fraction of the peak, by hand.
#include "runtime/cpu_peak.h"

#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/simd.h"
#include "graph_builders.h"
#include "runtime/executor.h"

namespace edgeq {
namespace {

struct HandCount {
  PeakLoop loop;
  int instructions;  // multiply-add instructions in one iteration of the loop's source
  int lanes;         // multiply-adds each does: vector bits / 32 for FMA, / 8 for the byte ones
};

// Written from the assembly in runtime/cpu_peak.cpp: 10 FMAs per iteration (8 or 16 floats each);
// 8 vpmaddubsw (32 or 64 byte products each, summed on by vpmaddwd + vpaddd); 10 vpdpbusd (32 or
// 64 byte products each).
const HandCount kHand[] = {
    {PeakLoop::kFmaYmm, 10, 8},     {PeakLoop::kFmaZmm, 10, 16},  {PeakLoop::kMaddubsYmm, 8, 32},
    {PeakLoop::kMaddubsZmm, 8, 64}, {PeakLoop::kVnniYmm, 10, 32}, {PeakLoop::kVnniZmm, 10, 64},
};

TEST(CpuPeak, LoopsDoTheirKnownInstructionCount) {
  int ran = 0;
  for (const HandCount& h : kHand) {
    const PeakLoopInfo info = peak_loop_info(h.loop);
    EXPECT_EQ(info.macs_per_iteration, int64_t{h.instructions} * h.lanes) << info.instruction;
    if (!peak_loop_supported(h.loop)) {
      EXPECT_THROW(run_peak_loop(h.loop, 1), Error) << info.instruction;
      continue;
    }
    ++ran;
    // On ones, each accumulator lane gains exactly the products it was given: the sum of all of
    // them is the number of multiply-adds the instructions did.
    for (int64_t n : {1, 3, 1000, 20000})
      EXPECT_EQ(run_peak_loop(h.loop, n), double(n) * h.instructions * h.lanes)
          << info.instruction << ", " << n << " iterations";
  }
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_GE(ran, 2);  // at least the AVX2 FMA and vpmaddubsw loops
  }
#endif
  if (ran == 0) GTEST_SKIP() << "no peak loop runs on this CPU";
}

TEST(CpuPeak, LoopsFollowTheExecutorsLevel) {
  PeakLoop loop;
  const SimdLevel was = simd_level();
  if (simd_supported() < SimdLevel::kAvx2) {
    EXPECT_FALSE(fp32_peak_loop(loop));
    GTEST_SKIP() << "below AVX2";
  }
  // EDGEQ_SIMD=avx2: the FP32 loop is AVX2's where oneDNN runs AVX2 or above (ONEDNN_MAX_CPU_ISA
  // may cap it lower: then none).
  set_simd_level(SimdLevel::kAvx2);
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx2 = static_cast<unsigned>(dnnl::cpu_isa::avx2);
  if ((isa & avx2) == avx2) {
    ASSERT_TRUE(fp32_peak_loop(loop));
    EXPECT_EQ(loop, PeakLoop::kFmaYmm);
  } else {
    EXPECT_FALSE(fp32_peak_loop(loop));
  }
  set_simd_level(SimdLevel::kScalar);
  EXPECT_FALSE(fp32_peak_loop(loop));
  set_simd_level(was);
  // int8 follows oneDNN's level (ONEDNN_MAX_CPU_ISA), and always a loop this CPU can run.
  if (int8_peak_loop(loop)) {
    EXPECT_TRUE(peak_loop_supported(loop));
  }
}

TEST(CpuPeak, UseAgainstThePeakByHand) {
  CpuPeak p;
  p.fp32_gflops = 100, p.int8_gops = 200;
  // 1 GFLOP at 100 GFLOP/s is 10 ms, 2 GOP at 200 GOP/s 10 ms: 20 ms of 40.
  PeakUse u = peak_use(p, 1e9, 2e9, 40);
  EXPECT_DOUBLE_EQ(u.gops, 75);  // 3e9 ops in 0.04 s
  EXPECT_DOUBLE_EQ(u.peak_fraction, 0.5);
  u = peak_use(p, 0, 4e9, 20);  // int8 only: at its peak exactly
  EXPECT_DOUBLE_EQ(u.peak_fraction, 1.0);
  p.int8_gops = 0;  // int8 work, no int8 peak measured: no fraction, the rate still
  u = peak_use(p, 1e9, 1e9, 10);
  EXPECT_DOUBLE_EQ(u.peak_fraction, 0);
  EXPECT_DOUBLE_EQ(u.gops, 200);
  EXPECT_DOUBLE_EQ(peak_use(p, 1e9, 0, 0).gops, 0);  // no time: nothing
}

TEST(CpuPeak, MeasuredOncePerThreadCount) {
  const CpuPeak& a = cpu_peak(1);
  EXPECT_EQ(&a, &cpu_peak(1));
  EXPECT_EQ(a.threads, 1);
  PeakLoop loop;
  if (fp32_peak_loop(loop)) {
    EXPECT_EQ(a.fp32_instruction, peak_loop_info(loop).instruction);
    EXPECT_GT(a.fp32_gflops, 0);
  }
  if (int8_peak_loop(loop)) {
    EXPECT_EQ(a.int8_instruction, peak_loop_info(loop).instruction);
    EXPECT_GT(a.int8_gops, 0);
  }
}

// The profile counts each step's multiply-adds: the 3x3 conv of paired_conv_model (4 -> 16
// channels, 10x10, pad 1) does 16 x 100 x 4 x 9 of them, on floats and, lowered, on codes.
TEST(CpuPeak, ProfileCountsEachStepsWork) {
  const test::PairedConv model = test::paired_conv_model(5);
  const int64_t flops = 2 * 16 * 10 * 10 * 4 * 9;
  auto conv_steps = [](const Graph& g, ExecMode mode) {
    ExecutorOptions o;
    o.exec = mode;
    Executor ex(g, o);
    ex.prepare();
    std::vector<StepTime> out;
    for (const StepTime& s : ex.profile())
      if (s.flops > 0)
        out.push_back(s);
      else
        EXPECT_EQ(s.int8, false) << s.what;
    return out;
  };
  std::vector<StepTime> steps = conv_steps(model.graph, ExecMode::kSimulate);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].flops, flops);
  EXPECT_FALSE(steps[0].int8);
  const Graph q =
      test::export_qdq_model(model.graph, test::calibrate(model.graph, "x", model.inputs), {})
          .graph;
  steps = conv_steps(q, ExecMode::kInt8);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].op, "QConv");
  EXPECT_EQ(steps[0].flops, flops);
  EXPECT_TRUE(steps[0].int8);
}

}  // namespace
}  // namespace edgeq
