// What `edgeq quantize` prints and records from a QuantizedModel, and its two flags on x86
// int8 pairs (--saturation-safe, --reduce-range).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "edgeq/quantize.h"

namespace edgeq::cli {

void add_saturation_options(CLI::App* cmd, QuantizeOptions& o);
// Warnings on stderr; the summary and "wrote" lines on stdout.
void print_quantize_summary(const QuantizedModel& q, const QuantizeOptions& o,
                            const std::string& out, const std::string& encodings,
                            const std::string& encodings_format);

}  // namespace edgeq::cli
