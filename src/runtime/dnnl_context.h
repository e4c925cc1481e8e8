// The process-wide oneDNN CPU engine and stream used by kernels built on oneDNN.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace edgeq {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();
// A stream of the calling thread's own, for primitives run from inside a parallel region.
dnnl::stream& dnnl_thread_stream();
// Whether oneDNN runs its AVX2 kernels here (with or without VNNI): an AVX2 CPU, or a bigger one
// capped with ONEDNN_MAX_CPU_ISA=AVX2. The level of the convolution kernels: what edgeq runs
// beside oneDNN's (int8 pair splitting, Winograd) keys on it, so results at a level are the same
// on any CPU running it, whatever EDGEQ_SIMD picks for edgeq's own loops.
bool onednn_runs_avx2();

}  // namespace edgeq
