#include "runtime/int8_pairs.h"

#include <algorithm>
#include <atomic>
#include <oneapi/dnnl/dnnl.hpp>

#include "core/error.h"
#include "runtime/dnnl_context.h"

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

bool onednn_int8_pair_order_known() {
  return onednn_runs_avx2();
}

bool int8_conv_splits_weights(const Tensor& weights, int64_t group) {
  return !int8_conv_split_channels(weights, group).empty();
}

std::vector<int64_t> int8_conv_split_channels(const Tensor& weights, int64_t group) {
  std::vector<int64_t> rows;
  if (!cpu_int8_pairs_saturate()) return rows;
  EDGEQ_CHECK(weights.dtype() == DType::kInt8 && weights.rank() >= 1,
              "weight pairs need int8 weights [O, ...]");
  const int64_t n = weights.dim(0), per_row = weights.numel() / std::max<int64_t>(n, 1);
  std::vector<WeightPair> pairs;
  const bool by_pairs = group == 1 && weights.rank() == 4 && onednn_int8_pair_order_known();
  if (by_pairs)
    pairs = conv_weight_pairs(weights.dim(1), weights.dim(2), weights.dim(3), PairOrder::kOneDnn);
  for (int64_t r = 0; r < n; ++r) {
    const int8_t* row = weights.data<int8_t>() + r * per_row;
    bool overflow = false;
    if (by_pairs) {
      for (const auto& [a, b] : pairs)
        if (pair_can_overflow(row[a], row[b])) {
          overflow = true;
          break;
        }
    } else {
      overflow = weight_pairs_can_overflow(row, per_row);
    }
    if (overflow) rows.push_back(r);
  }
  return rows;
}

const char* pair_order_name(PairOrder order) {
  return order == PairOrder::kOnnxRuntime ? "ONNX Runtime" : "oneDNN";
}

std::vector<WeightPair> conv_weight_pairs(int64_t channels_per_group, int64_t kh, int64_t kw,
                                          PairOrder order) {
  std::vector<WeightPair> pairs;
  const int64_t c_n = channels_per_group, taps = kh * kw;
  if (c_n < 2) return pairs;
  auto at = [taps](int64_t c, int64_t tap) { return static_cast<int32_t>(c * taps + tap); };
  if (order == PairOrder::kOneDnn) {
    for (int64_t tap = 0; tap < taps; ++tap)
      for (int64_t c = 0; c + 1 < c_n; c += 2) pairs.push_back({at(c, tap), at(c + 1, tap)});
    return pairs;
  }
  const int64_t k = c_n * taps;  // position t of MLAS's order: tap t / C, channel t % C
  for (int64_t t = 0; t + 1 < k; t += 2)
    pairs.push_back({at(t % c_n, t / c_n), at((t + 1) % c_n, (t + 1) / c_n)});
  return pairs;
}

PairCount count_weight_pairs(const Tensor& weights, PairOrder order) {
  EDGEQ_CHECK(weights.dtype() == DType::kInt8 && weights.rank() == 4,
              "weight pairs need int8 conv weights [O, C/group, kH, kW], got ",
              dtype_name(weights.dtype()), " ", shape_str(weights.shape()));
  const std::vector<WeightPair> pairs =
      conv_weight_pairs(weights.dim(1), weights.dim(2), weights.dim(3), order);
  const int64_t rows = weights.dim(0), per_row = weights.numel() / std::max<int64_t>(rows, 1);
  PairCount n;
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t* row = weights.data<int8_t>() + r * per_row;
    for (const auto& [a, b] : pairs) n.can_overflow += pair_can_overflow(row[a], row[b]);
  }
  n.pairs = rows * static_cast<int64_t>(pairs.size());
  return n;
}

}  // namespace edgeq
