#include "runtime/plan_rewrites.h"

#include "runtime/fusion.h"
#include "runtime/int8_lowering.h"
#include "runtime/qdq_fold.h"

namespace edgeq {

namespace {

// What every rewrite pass reads and writes.
struct PassContext {
  Graph& rt;  // the graph that runs, rewritten in place
  const Graph& g;
  ValueDescs& descs;
  const ExecutorOptions& opt;
  const Watches& watches;
  std::vector<std::string>& notices;
  // Watching every value ("*") keeps every value: no rewrite may drop one.
  bool keep_all() const { return watches.all; }
  bool int8() const { return opt.exec == ExecMode::kInt8; }
};

void lower_int8(PassContext& c) {
  const Int8Plan plan = lower_to_int8(c.rt, c.descs, c.g, c.watches.protect, c.opt.emulate);
  for (const std::string& line : plan.float_ops)
    c.notices.push_back("int8: runs in float (no int8 kernel): " + line);
  if (c.opt.emulate == Int8Emulation::kAvx2)
    c.notices.push_back(
        "int8: emulating ONNX Runtime's int8 kernels on x86 without VNNI (int16 "
        "pairs that saturate): " +
        std::to_string(plan.saturating_qconvs) + " of " + std::to_string(plan.qconvs) +
        " convolutions have a pair of weights that can overflow one");
  if (plan.ordered_qconvs > 0)
    c.notices.push_back(
        "int8: " + std::to_string(plan.ordered_qconvs) + " of " + std::to_string(plan.qconvs) +
        " convolutions run their input channels in an order where no two weights of a pair can "
        "overflow this CPU's saturating int16 pairs (no VNNI), on one exact convolution instead "
        "of split weights" +
        (plan.spread_qconvs > 0
             ? " (" + std::to_string(plan.spread_qconvs) + " with each channel beside an empty one)"
             : std::string()));
  if (plan.split_qconvs > 0)
    c.notices.push_back("int8: " + std::to_string(plan.split_qconvs) + " of " +
                        std::to_string(plan.qconvs) + " convolutions run " +
                        std::to_string(plan.split_channels) + " of their " +
                        std::to_string(plan.split_conv_channels) +
                        " output channels on split weights: this CPU adds int8 products in "
                        "saturating int16 pairs (no VNNI) and two weights of those channels "
                        "could overflow one; exact (depthwise convolutions on edgeq's own "
                        "kernel, the others at about twice those channels' integer work)");
}

// The rewrite passes, in the order they run, each with when it applies.
struct RewritePass {
  const char* name;
  bool (*applies)(const PassContext&);
  void (*run)(PassContext&);
};

const RewritePass kPasses[] = {
    {"fold Q -> DQ pairs into fake-quant steps",
     [](const PassContext& c) { return c.opt.fold_qdq; },
     [](PassContext& c) { fold_qdq_pairs(c.rt, c.descs, c.watches.protect); }},
    {"drop fake-quant steps that change nothing",
     [](const PassContext& c) { return c.opt.fold_qdq && !c.keep_all(); },
     [](PassContext& c) { drop_redundant_fake_quant(c.rt, c.watches.protect); }},
    {"fuse fake-quant steps into their producers",
     [](const PassContext& c) { return c.opt.fuse && c.opt.fold_qdq && !c.keep_all(); },
     [](PassContext& c) { fuse_fake_quant(c.rt, c.watches.protect); }},
    {"fuse Conv + SiLU", [](const PassContext& c) { return c.opt.fuse && !c.keep_all(); },
     [](PassContext& c) { fuse_conv_silu(c.rt, c.watches.protect); }},
    {"fuse Sigmoid * Mul", [](const PassContext& c) { return c.opt.fuse && !c.keep_all(); },
     [](PassContext& c) { fuse_sigmoid_mul(c.rt, c.watches.protect); }},
    {"lower 8-bit values to codes on integer kernels",
     [](const PassContext& c) { return c.int8(); }, lower_int8},
};

}  // namespace

Graph runtime_graph(const Graph& g, const std::vector<bool>& folded, ValueDescs& descs,
                    const ExecutorOptions& opt, const Watches& watches,
                    std::vector<std::string>& notices) {
  const bool int8 = opt.exec == ExecMode::kInt8;
  EDGEQ_CHECK(!int8 || (opt.fold_qdq && !watches.all),
              "int8 execution needs folded QDQ pairs and cannot watch every value (calibration and "
              "per-value comparisons use the simulated execution)");
  EDGEQ_CHECK(int8 || opt.emulate == Int8Emulation::kNone, "emulating ", name(opt.emulate),
              " arithmetic needs the int8 execution (the simulation is the exact QDQ formula)");
  Graph rt;
  rt.opsets = g.opsets;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    if (!folded[ni]) rt.nodes.push_back(g.nodes[ni]);
  PassContext c{rt, g, descs, opt, watches, notices};
  for (const RewritePass& pass : kPasses)
    if (pass.applies(c)) pass.run(c);
  return rt;
}

}  // namespace edgeq
