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

bool onednn_runs_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx2 || isa == dnnl::cpu_isa::avx2_vnni;
#else
  return false;
#endif
}

}  // namespace edgeq
