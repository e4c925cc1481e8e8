// The process-wide oneDNN CPU engine and stream used by kernels built on oneDNN.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace edgeq {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();

}  // namespace edgeq
