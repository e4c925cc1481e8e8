// Planning pass 3: steps and buffers. For each node of the runtime graph, in order: its layout
// (runtime/layout_choice.h), its kernel, a slot per output, conversion steps where a reader wants
// another layout, view ops as aliases of their input, hooks, and which kernel passes each streamed
// value on while it reads it. Graph outputs end plain in caller-owned tensors.
#pragma once
#include "runtime/plan.h"

namespace edgeq {

// Fills p.slots, p.steps, p.input_slots / output_slots / input_hooks / input_streams from
// p.runtime, p.descs and p.constants. `g` gives the graph inputs, outputs and opsets.
void plan_steps(Plan& p, const Graph& g, const ExecutorOptions& opt, const Watches& watches);

}  // namespace edgeq
