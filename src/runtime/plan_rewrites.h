// Planning pass 2: the graph that runs. Folded nodes go; QDQ pairs fold into fake-quant steps
// (runtime/qdq_fold.h) and kernels fuse (runtime/fusion.h), never hiding a watched value.
#pragma once
#include <vector>

#include "runtime/plan.h"

namespace edgeq {

// `g` sorted topologically; `folded` per node of g (constant folding, pass 1).
Graph runtime_graph(const Graph& g, const std::vector<bool>& folded, const ValueDescs& descs,
                    const ExecutorOptions& opt, const Watches& watches);

}  // namespace edgeq
