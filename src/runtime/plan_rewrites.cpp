#include "runtime/plan_rewrites.h"

#include "runtime/fusion.h"
#include "runtime/int8_lowering.h"
#include "runtime/qdq_fold.h"

namespace edgeq {

Graph runtime_graph(const Graph& g, const std::vector<bool>& folded, ValueDescs& descs,
                    const ExecutorOptions& opt, const Watches& watches,
                    std::vector<std::string>& notices) {
  const bool int8 = opt.exec == ExecMode::kInt8;
  EDGEQ_CHECK(!int8 || (opt.fold_qdq && !watches.all),
              "int8 execution needs folded QDQ pairs and cannot watch every value (calibration and "
              "per-value comparisons use the simulated execution)");
  EDGEQ_CHECK(int8 || opt.emulate == Int8Emulation::kNone, "emulating ",
              int8_emulation_name(opt.emulate),
              " arithmetic needs the int8 execution (the simulation is the exact QDQ formula)");
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
  if (int8) {
    Int8Plan plan = lower_to_int8(rt, descs, g, watches.protect, opt.emulate);
    for (const std::string& line : plan.float_ops)
      notices.push_back("int8: runs in float (no int8 kernel): " + line);
    if (opt.emulate == Int8Emulation::kAvx2)
      notices.push_back(
          "int8: emulating ONNX Runtime's int8 kernels on x86 without VNNI (int16 "
          "pairs that saturate): " +
          std::to_string(plan.saturating_qconvs) + " of " + std::to_string(plan.qconvs) +
          " convolutions have a pair of weights that can overflow one");
    if (plan.split_qconvs > 0)
      notices.push_back("int8: " + std::to_string(plan.split_qconvs) + " of " +
                        std::to_string(plan.qconvs) +
                        " convolutions run on split weights: this CPU adds int8 products in "
                        "saturating int16 pairs (no VNNI) and two of their weights could "
                        "overflow one; exact, at about twice the integer work");
  }
  return rt;
}

}  // namespace edgeq
