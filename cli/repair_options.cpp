#include "repair_options.h"

#include <cstdio>

#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {

RepairOptions RepairArgs::resolve() const {
  RepairOptions o = options;
  o.gptq = gptq > 0   ? RepairOptions::Gptq::kOn
           : gptq < 0 ? RepairOptions::Gptq::kOff
                      : RepairOptions::Gptq::kSchemeDefault;
  return o;
}

void add_repair_options(CLI::App* cmd, RepairArgs& a) {
  RepairOptions& o = a.options;
  cmd->add_flag("--cle", o.cle,
                "cross-layer equalization of Conv -> depthwise Conv pairs with nothing but "
                "positively homogeneous ops between (needs --images)");
  cmd->add_flag("--gptq,!--no-gptq", a.gptq,
                "GPTQ rounding of Conv weights on their grid, errors compensated on the "
                "calibration inputs (needs --images; with --images the w8a16 default)");
  cmd->add_flag("--bias-correction", o.bias_correction,
                "subtract the mean output shift weight rounding causes from Conv biases (needs "
                "--images)");
  add_number(cmd, "--n", o.n, ranges::kImages, "images weight repair samples")
      ->capture_default_str();
  add_number(cmd, "--seed", o.seed, ranges::kSeed, "sampling seed for --images")
      ->capture_default_str();
  add_number(cmd, "--repair-memory", o.memory_mib, ranges::kMemoryMib,
             "MiB of GPTQ Hessians held at once (more convs per pass over the images)")
      ->capture_default_str();
}

void print_repair(const RepairReport& r) {
  if (!r.equalization.empty())
    std::printf("cross-layer equalization: %s\n", r.equalization.c_str());
  for (const RepairReport::Pair& p : r.equalized)
    std::printf("  equalized %s -> %s: channel range spread %.3g -> %.3g\n",
                printable(p.first).c_str(), printable(p.second).c_str(), p.spread_before,
                p.spread_after);
  if (r.passes == 0) return;
  std::printf("weight repair on %zu image%s (%d pass%s):", r.images, r.images == 1 ? "" : "s",
              r.passes, r.passes == 1 ? "" : "es");
  if (r.gptq)
    std::printf(" GPTQ %d convs, %lld of %lld weight channels exact (kept), %lld codes changed;",
                r.convs, static_cast<long long>(r.rows_exact), static_cast<long long>(r.rows),
                static_cast<long long>(r.codes_changed));
  if (r.bias_correction)
    std::printf(" bias correction %d convs, largest shift %.3g;", r.convs, r.max_bias_shift);
  std::printf("\n");
}

}  // namespace edgeq::cli
