// Planning pass 2: the graph that runs. Folded nodes go, then one ordered list of rewrite passes
// (kPasses in plan_rewrites.cpp): QDQ pairs fold into fake-quant steps (runtime/qdq_fold.h) and
// kernels fuse (runtime/fusion.h), never hiding a watched value; with int8 execution, 8-bit values
// become codes (runtime/int8_lowering.h).
#pragma once
#include <vector>

#include "runtime/plan.h"

namespace edgeq {

// `g` sorted topologically; `folded` per node of g (constant folding, pass 1). With --exec int8
// the integer lowering adds values to `descs` and lines to `notices`.
Graph runtime_graph(const Graph& g, const std::vector<bool>& folded, ValueDescs& descs,
                    const ExecutorOptions& opt, const Watches& watches,
                    std::vector<std::string>& notices);

}  // namespace edgeq
