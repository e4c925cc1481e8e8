#include "quant/saturation_safe.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "runtime/int8_pairs.h"

namespace edgeq {

std::vector<std::vector<int32_t>> pair_partners(int64_t channels_per_group, int64_t kh,
                                                int64_t kw) {
  std::vector<std::vector<int32_t>> partners(static_cast<size_t>(channels_per_group * kh * kw));
  auto link = [&](int32_t a, int32_t b) {
    auto& list = partners[static_cast<size_t>(a)];
    if (std::find(list.begin(), list.end(), b) == list.end()) list.push_back(b);
  };
  for (PairOrder order : {PairOrder::kOnnxRuntime, PairOrder::kOneDnn})
    for (const auto& [a, b] : conv_weight_pairs(channels_per_group, kh, kw, order)) {
      link(a, b);
      link(b, a);
    }
  return partners;
}

CodeRange safe_code_range(const std::vector<int32_t>& partners_of_a, const int64_t* codes,
                          const char* chosen, int64_t lo, int64_t hi) {
  for (int32_t p : partners_of_a) {
    if (!chosen[p]) continue;
    if (codes[p] > 0) hi = std::min(hi, 128 - codes[p]);
    if (codes[p] < 0) lo = std::max(lo, -128 - codes[p]);
  }
  return {lo, hi};
}

bool row_has_overflowing_pair(const Tensor& q, int64_t o,
                              const std::vector<std::vector<int32_t>>& partners) {
  const int64_t k = static_cast<int64_t>(partners.size());
  const int8_t* row = q.data<int8_t>() + o * k;
  for (int64_t a = 0; a < k; ++a)
    for (int32_t b : partners[a])
      if (pair_can_overflow(row[a], row[b])) return true;
  return false;
}

int64_t make_pairs_safe(Tensor& q, const Tensor& w, const TensorEncoding& enc) {
  EDGEQ_CHECK(q.dtype() == DType::kInt8 && q.rank() == 4 && w.shape() == q.shape() &&
                  w.dtype() == DType::kFloat32,
              "saturation-safe codes need int8 conv codes and their float weight, got ",
              dtype_name(q.dtype()), " ", shape_str(q.shape()), " and ", dtype_name(w.dtype()), " ",
              shape_str(w.shape()));
  const auto partners = pair_partners(q.dim(1), q.dim(2), q.dim(3));
  const int64_t rows = q.dim(0), k = static_cast<int64_t>(partners.size());
  int64_t changed = 0;
  for (int64_t o = 0; o < rows; ++o) {
    if (!row_has_overflowing_pair(q, o, partners)) continue;
    int8_t* row = q.data<int8_t>() + o * k;
    const float* x = w.data<float>() + o * k;
    const Encoding& e = enc.at(enc.per_channel() ? static_cast<size_t>(o) : 0);
    std::vector<int8_t> before(row, row + k);
    // How far a code's magnitude lies beyond its unrounded value: the one to lower first.
    auto excess = [&](int64_t a) { return std::fabs(double(row[a])) - std::fabs(x[a] / e.scale); };
    for (bool again = true; again;) {
      again = false;
      for (int64_t a = 0; a < k; ++a)
        for (int32_t b : partners[a])
          while (pair_can_overflow(row[a], row[b])) {
            const int64_t lower = excess(a) >= excess(b) ? a : b;
            row[lower] = static_cast<int8_t>(row[lower] > 0 ? row[lower] - 1 : row[lower] + 1);
            again = true;
          }
    }
    for (int64_t a = 0; a < k; ++a) changed += row[a] != before[a];
  }
  return changed;
}

}  // namespace edgeq
