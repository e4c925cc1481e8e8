// The process-wide oneDNN CPU engine and stream used by kernels built on oneDNN.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace edgeq {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();
// A stream of the calling thread's own, for primitives run from inside a parallel region.
dnnl::stream& dnnl_thread_stream();

}  // namespace edgeq
