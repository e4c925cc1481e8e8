#include "runtime/plan_memory.h"

#include <algorithm>

#include "runtime/memory_plan.h"

namespace edgeq {
namespace {

// First step writing and last step reading each slot; an alias keeps its root alive.
void liveness(Plan& p) {
  const int n_steps = static_cast<int>(p.steps.size());
  for (auto& sl : p.slots) {
    sl.first = sl.external ? 0 : n_steps;
    sl.last = -1;
  }
  for (int si = 0; si < n_steps; ++si) {
    Step& s = p.steps[si];
    for (int id : s.out_slots)
      if (id >= 0) p.slots[id].first = std::min(p.slots[id].first, si);
    for (int id : s.in_slots)
      if (id >= 0) p.slots[id].last = std::max(p.slots[id].last, si);
    for (const auto& h : s.hooks)
      for (int id : {h.logical_slot, h.stored_slot})
        if (id >= 0) p.slots[id].last = std::max(p.slots[id].last, si);
  }
  for (const auto& o : p.output_slots)
    if (o.second >= 0) p.slots[o.second].external = true;
  for (auto& sl : p.slots)
    if (sl.alias_of >= 0) {
      Slot& root = p.slots[sl.alias_of];
      root.last = std::max(root.last, sl.last);
    }
}

void assign_arena(Plan& p) {
  std::vector<BufferLife> lives;
  std::vector<int> arena_ids;
  for (size_t i = 0; i < p.slots.size(); ++i) {
    Slot& sl = p.slots[i];
    if (sl.external || sl.alias_of >= 0) continue;
    sl.last = std::max(sl.last, sl.first);
    lives.push_back({shape_numel(sl.desc.shape) * dtype_size(sl.desc.dtype), sl.first, sl.last});
    arena_ids.push_back(static_cast<int>(i));
  }
  std::vector<size_t> offsets = plan_arena(lives, &p.arena_bytes);
  p.arena = Tensor(DType::kUInt8, {static_cast<int64_t>(p.arena_bytes)});
  for (size_t j = 0; j < arena_ids.size(); ++j) {
    Slot& sl = p.slots[arena_ids[j]];
    sl.offset = offsets[j];
    sl.view = Tensor::view(sl.desc.dtype, physical_shape(sl.desc.shape, sl.layout),
                           p.arena.data<uint8_t>() + sl.offset);
  }
  for (auto& sl : p.slots)
    if (sl.alias_of >= 0)
      sl.view = Tensor::view(sl.desc.dtype, sl.desc.shape, p.slots[sl.alias_of].view.raw());
}

// Each step's tensor pointers; external slots' views are refreshed per run.
void bind_steps(Plan& p) {
  for (Step& s : p.steps) {
    for (int id : s.out_slots) s.out.push_back(id >= 0 ? &p.slots[id].view : nullptr);
    if (s.kind != Step::Kind::kKernel) {
      s.in.push_back(&p.slots[s.in_slots[0]].view);
      continue;
    }
    const Node& node = p.runtime.nodes[s.node];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int id = s.in_slots[i];
      if (id >= 0)
        s.in.push_back(&p.slots[id].view);
      else if (node.inputs[i].empty())
        s.in.push_back(nullptr);
      else
        s.in.push_back(&p.constants.at(node.inputs[i]));
    }
  }
}

}  // namespace

void plan_memory(Plan& p) {
  liveness(p);
  assign_arena(p);
  bind_steps(p);
}

}  // namespace edgeq
