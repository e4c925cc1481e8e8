// `quantize --auto P --images DIR`: the mixed-precision search (analysis/mixed_search.h) as a
// step of quantize, with its options, progress on stderr, and the chosen set and log written.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "ir/graph.h"
#include "quant/quant_config.h"
#include "quant/stats.h"

namespace edgeq::cli {

struct AutoArgs {
  double percent = 0;
  bool given = false;  // --auto on the command line (--auto 0 is refused, not "no search")
  std::string images, set_out, log_out;
  int n = 16;
  int threads = 0;
};

void add_auto_options(CLI::App* cmd, AutoArgs& a);
// Checks the options and files first (nothing is run or written on bad input).
void check_auto_args(const AutoArgs& a, const QuantConfig& c);
// Runs the search when asked; adds the chosen values to c.a16.
void apply_auto_search(const AutoArgs& a, const Graph& g, const Stats& stats, QuantConfig& c);

}  // namespace edgeq::cli
