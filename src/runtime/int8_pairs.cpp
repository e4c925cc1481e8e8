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

namespace {

// Bit b of clashes[a]: input channels first + a and first + b of weights [O, C, kH, kW] (n of
// them from `first`), side by side at every tap, hold a pair that can overflow in some output
// channel. Such a pair holds a weight of magnitude 65 or more, so only those are looked at.
std::vector<uint64_t> channel_clashes(const Tensor& w, int64_t first, int n) {
  const int64_t rows = w.dim(0), c = w.dim(1), taps = w.dim(2) * w.dim(3);
  const int8_t* data = w.data<int8_t>();
  std::vector<uint64_t> clashes(size_t(n), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int a = 0; a < n; ++a) {
      const int8_t* wa = data + (r * c + first + a) * taps;
      for (int64_t t = 0; t < taps; ++t) {
        if (wa[t] > -65 && wa[t] < 65) continue;
        for (int b = 0; b < n; ++b)
          if (b != a && pair_can_overflow(wa[t], data[(r * c + first + b) * taps + t])) {
            clashes[size_t(a)] |= uint64_t{1} << b;
            clashes[size_t(b)] |= uint64_t{1} << a;
          }
      }
    }
  return clashes;
}

// A fixed mix of a vertex and an attempt: the attempt's order among equally good choices.
uint32_t tie_rank(uint32_t v, uint32_t attempt) {
  uint32_t h = (v + 1) * 2654435761u ^ (attempt * 40503u);
  h ^= h >> 15;
  return attempt == 0 ? v : h * 2246822519u;
}

// Pairs of the n <= 64 vertices of `fits` (bit b of fits[a]: a and b may share a pair), each vertex
// in one, and the vertex left alone last where n is odd: a greedy matching that takes the vertex
// with the fewest free partners and its partner with the fewest. Empty where it leaves a vertex
// without one.
std::vector<int32_t> greedy_pairs(const std::vector<uint64_t>& fits, int n, uint32_t attempt) {
  uint64_t free = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  std::vector<int32_t> order;
  int alone = -1;
  auto fewest = [&](uint64_t among) {
    int best = -1, best_degree = 65;
    uint32_t best_rank = 0;
    for (uint64_t m = among; m; m &= m - 1) {
      const int v = __builtin_ctzll(m);
      const int degree = __builtin_popcountll(fits[size_t(v)] & free);
      const uint32_t rank = tie_rank(uint32_t(v), attempt);
      if (degree < best_degree || (degree == best_degree && rank < best_rank)) {
        best = v;
        best_degree = degree;
        best_rank = rank;
      }
    }
    return best;
  };
  while (free) {
    const int v = fewest(free);
    free &= ~(uint64_t{1} << v);
    const uint64_t partners = fits[size_t(v)] & free;
    if (!partners) {
      if (alone >= 0 || n % 2 == 0) return {};
      alone = v;
      continue;
    }
    const int u = fewest(partners);
    free &= ~(uint64_t{1} << u);
    order.push_back(v);
    order.push_back(u);
  }
  if (alone >= 0) order.push_back(alone);
  return order;
}

}  // namespace

std::optional<std::vector<int32_t>> int8_conv_channel_order(const Tensor& weights, int64_t block) {
  EDGEQ_CHECK(weights.dtype() == DType::kInt8 && weights.rank() == 4,
              "channel orders need int8 conv weights [O, C, kH, kW]");
  EDGEQ_CHECK(block >= 2 && block <= 64 && block % 2 == 0, "channel blocks of 2 to 64, even");
  constexpr uint32_t kAttempts = 64;
  const int64_t c = weights.dim(1);
  std::vector<int32_t> order;
  for (int64_t first = 0; first < c; first += block) {
    const int n = static_cast<int>(std::min(block, c - first));
    std::vector<uint64_t> fits = channel_clashes(weights, first, n);
    for (int a = 0; a < n; ++a) fits[size_t(a)] = ~fits[size_t(a)] & ~(uint64_t{1} << a);
    const uint64_t block_mask = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    const auto partnerless =
        std::count_if(fits.begin(), fits.end(), [&](uint64_t f) { return (f & block_mask) == 0; });
    if (partnerless > n % 2) return std::nullopt;  // no attempt can pair them all
    std::vector<int32_t> pairs;
    for (uint32_t attempt = 0; attempt < kAttempts && pairs.empty(); ++attempt)
      pairs = greedy_pairs(fits, n, attempt);
    if (pairs.empty()) return std::nullopt;
    for (int32_t v : pairs) order.push_back(static_cast<int32_t>(first) + v);
  }
  return order;
}

std::vector<int32_t> channels_beside_nothing(int64_t channels) {
  std::vector<int32_t> order;
  for (int64_t ch = 0; ch < channels; ++ch) {
    order.push_back(static_cast<int32_t>(ch));
    order.push_back(-1);
  }
  return order;
}

Int8ConvPlan plan_int8_conv(const Tensor& weights, int64_t group) {
  Int8ConvPlan plan;
  plan.split_channels = int8_conv_split_channels(weights, group);
  if (plan.split_channels.empty() || group != 1 || !onednn_int8_pair_order_known()) return plan;
  std::optional<std::vector<int32_t>> order = int8_conv_channel_order(weights, kInt8ChannelBlock);
  // Beside nothing only for few channels: their slots move a few pixels a shuffle (pad_codes.h),
  // where wide inputs would go byte by byte through a copy twice their size.
  constexpr int64_t kMostChannelsBesideNothing = 16;
  if (!order && 2 * static_cast<int64_t>(plan.split_channels.size()) > weights.dim(0) &&
      weights.dim(1) <= kMostChannelsBesideNothing)
    order = channels_beside_nothing(weights.dim(1));
  if (!order) return plan;
  plan.channel_order = std::move(*order);
  plan.split_channels =
      int8_conv_split_channels(weights_in_channel_order(weights, plan.channel_order), group);
  return plan;
}

Tensor weights_in_channel_order(const Tensor& weights, const std::vector<int32_t>& order) {
  EDGEQ_CHECK(weights.dtype() == DType::kInt8 && weights.rank() == 4,
              "channel orders need int8 conv weights [O, C, kH, kW]");
  const int64_t rows = weights.dim(0), c = weights.dim(1), taps = weights.dim(2) * weights.dim(3);
  const int64_t slots = static_cast<int64_t>(order.size());
  Tensor out(DType::kInt8, {rows, slots, weights.dim(2), weights.dim(3)});
  int8_t* to = out.data<int8_t>();
  const int8_t* from = weights.data<int8_t>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < slots; ++s) {
      const int32_t ch = order[size_t(s)];
      EDGEQ_CHECK(ch < c, "channel order names channel ", ch, " of ", c);
      for (int64_t t = 0; t < taps; ++t)
        to[(r * slots + s) * taps + t] = ch < 0 ? 0 : from[(r * c + ch) * taps + t];
    }
  return out;
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
