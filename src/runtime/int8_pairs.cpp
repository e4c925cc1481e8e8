#include "runtime/int8_pairs.h"

#include <algorithm>
#include <atomic>
#include <oneapi/dnnl/dnnl.hpp>

#include "core/error.h"

namespace edgeq {
namespace {

// -1: the CPU decides; 0 / 1: set_int8_pairs_saturate's answer.
std::atomic<int> override_saturate{-1};

}  // namespace

bool cpu_int8_pairs_saturate() {
  const int forced = override_saturate.load();
  if (forced >= 0) return forced != 0;
#if defined(__x86_64__) || defined(__i386__)
  static const bool saturate = [] {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    return (isa & static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni)) !=
           static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
  }();
  return saturate;
#else
  return false;
#endif
}

void set_int8_pairs_saturate(std::optional<bool> saturate) {
  override_saturate = saturate ? int(*saturate) : -1;
}

bool weight_pairs_can_overflow(const int8_t* row, int64_t n) {
  int top_pos[2] = {0, 0}, top_neg[2] = {0, 0};  // the two largest magnitudes of each sign
  for (int64_t i = 0; i < n; ++i) {
    const int w = row[i];
    int* top = w > 0 ? top_pos : top_neg;
    const int m = w > 0 ? w : -w;
    if (m > top[0]) {
      top[1] = top[0];
      top[0] = m;
    } else if (m > top[1]) {
      top[1] = m;
    }
  }
  return top_pos[0] + top_pos[1] >= 129 || top_neg[0] + top_neg[1] >= 129;
}

bool weight_pairs_can_overflow(const Tensor& weights) {
  EDGEQ_CHECK(weights.dtype() == DType::kInt8 && weights.rank() >= 1,
              "weight pairs need int8 weights [O, ...]");
  const int64_t rows = weights.dim(0), per_row = weights.numel() / std::max<int64_t>(rows, 1);
  for (int64_t r = 0; r < rows; ++r)
    if (weight_pairs_can_overflow(weights.data<int8_t>() + r * per_row, per_row)) return true;
  return false;
}

bool int8_conv_splits_weights(const Tensor& weights) {
  return cpu_int8_pairs_saturate() && weight_pairs_can_overflow(weights);
}

}  // namespace edgeq
