#include "runtime/plan_rewrites.h"

#include "runtime/fusion.h"
#include "runtime/qdq_fold.h"

namespace edgeq {

Graph runtime_graph(const Graph& g, const std::vector<bool>& folded, const ValueDescs& descs,
                    const ExecutorOptions& opt, const Watches& watches) {
  Graph rt;
  rt.opsets = g.opsets;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    if (!folded[ni]) rt.nodes.push_back(g.nodes[ni]);
  // Watching every value ("*") keeps every value: no rewrite may drop one.
  const bool keep_all = watches.all;
  if (opt.fold_qdq) {
    fold_qdq_pairs(rt, descs, watches.protect);
    if (!keep_all) drop_redundant_fake_quant(rt, watches.protect);
  }
  if (opt.fuse && !keep_all) {
    if (opt.fold_qdq) fuse_fake_quant(rt, watches.protect);
    fuse_conv_silu(rt, watches.protect);
    fuse_sigmoid_mul(rt, watches.protect);
  }
  return rt;
}

}  // namespace edgeq
