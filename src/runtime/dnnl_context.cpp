#include "runtime/dnnl_context.h"

namespace edgeq {

dnnl::engine& dnnl_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& dnnl_stream() {
  static dnnl::stream s(dnnl_engine());
  return s;
}

dnnl::stream& dnnl_thread_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

}  // namespace edgeq
