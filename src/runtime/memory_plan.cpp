#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace edgeq {

std::vector<size_t> plan_arena(const std::vector<BufferLife>& buffers, size_t* total) {
  auto align = [](size_t b) { return (b + 63) / 64 * 64; };
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first, then by start: the classic greedy-by-size heuristic.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  std::vector<size_t> offset(buffers.size(), 0);
  std::vector<size_t> placed;
  size_t arena = 0;
  for (size_t idx : order) {
    const BufferLife& b = buffers[idx];
    size_t need = align(b.bytes);
    // Intervals of already placed buffers alive at the same time, sorted by offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t p : placed) {
      const BufferLife& o = buffers[p];
      if (o.first <= b.last && b.first <= o.last)
        busy.push_back({offset[p], offset[p] + align(o.bytes)});
    }
    std::sort(busy.begin(), busy.end());
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const auto& iv : busy) {
      if (iv.first >= cursor + need && iv.first - cursor < best_gap) {
        best = cursor;
        best_gap = iv.first - cursor;
      }
      cursor = std::max(cursor, iv.second);
    }
    if (best == SIZE_MAX) best = cursor;
    offset[idx] = best;
    arena = std::max(arena, best + need);
    placed.push_back(idx);
  }
  *total = arena;
  return offset;
}

}  // namespace edgeq
