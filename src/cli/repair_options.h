// Weight repair for `edgeq quantize`: --cle, --gptq, --bias-correction and the calibration images
// they read (--images, --n, --seed, sampled and letterboxed as `edgeq calibrate` does).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "ir/graph.h"
#include "quant/quant_config.h"
#include "quant/quant_plan.h"
#include "quant/stats.h"
#include "quant/weight_encoding.h"

namespace edgeq::cli {

struct RepairOptions {
  int gptq = 0;  // --gptq +1, --no-gptq -1; 0: the scheme's default (gptq_by_default)
  bool cle = false, bias_correction = false;
  std::string images;
  size_t n = 128;
  uint64_t seed = 0;
  int threads = 0;
  size_t memory_mib = 1024;  // input moments held at once (GPTQ's Hessians)

  bool asked() const { return cle || gptq > 0 || bias_correction; }
};

void add_repair_options(CLI::App* cmd, RepairOptions& o);

// One-line refusal before any work: a repair flag without --images.
void check_repair_options(const RepairOptions& o);

// Runs what the options ask (and, with --images, what the scheme runs by default) on the float
// graph `g`: cross-layer equalization first (the values it
// rescales get fresh statistics in `stats`, from the images), then one calibration pass for GPTQ
// and bias correction. Progress on stderr, a summary on stdout. Returns the encodings of the
// weights GPTQ rounded, for quantize_model.
std::map<std::string, TensorEncoding> repair_model(const RepairOptions& o, Graph& g,
                                                   const QuantPlan& plan, const QuantConfig& c,
                                                   Stats& stats, const std::string& model_sha256);

}  // namespace edgeq::cli
