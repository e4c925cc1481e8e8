// Weight repair flags of `edgeq quantize` (--cle, --gptq / --no-gptq, --bias-correction, --n,
// --seed, --repair-memory) onto edgeq::RepairOptions; the images are quantize's --images.
#pragma once
#include <CLI/CLI.hpp>

#include "edgeq/quantize.h"

namespace edgeq::cli {

struct RepairArgs {
  int gptq = 0;  // --gptq +1, --no-gptq -1, 0: the scheme's default
  RepairOptions options;

  RepairOptions resolve() const;
};

void add_repair_options(CLI::App* cmd, RepairArgs& a);

// "cross-layer equalization: ...", the equalized pairs, "weight repair on N images ...".
void print_repair(const RepairReport& r);

}  // namespace edgeq::cli
