#include "quantize_print.h"

#include <cstdio>
#include <iostream>

#include "edgeq/text.h"

namespace edgeq::cli {

void add_saturation_options(CLI::App* cmd, QuantizeOptions& o) {
  cmd->add_flag("--saturation-safe", o.saturation_safe,
                "w8a8 for ONNX Runtime / oneDNN on x86 CPUs that may lack VNNI: Conv weight codes "
                "no int16 pair of products can overflow (per channel, overflowing pairs lowered "
                "or a coarser grid; GPTQ compensates with --images --gptq); not the default: on "
                "NPUs, VNNI and ARM CPUs the plain file is exact (doctor --target cpu-avx2 "
                "checks a file)");
  cmd->add_flag("--reduce-range", o.reduce_range,
                "w8a8 with 7-bit weight codes everywhere (-64..64, ONNX Runtime's reduce_range): "
                "no pair can overflow, at twice the weight step; for comparison with "
                "--saturation-safe");
}

void print_quantize_summary(const QuantizedModel& q, const QuantizeOptions& o,
                            const std::string& out, const std::string& encodings,
                            const std::string& encodings_format) {
  for (const std::string& w : q.warnings()) std::cerr << "warning: " << printable(w) << "\n";
  const QuantizeSummary& s = q.summary();
  std::printf("%s, range %s, placement %s: activations %zu at 8 bit, %zu at 16 bit",
              std::string(edgeq::name(o.scheme)).c_str(), s.range.c_str(),
              std::string(edgeq::name(o.placement)).c_str(), s.activations_8bit,
              s.activations_16bit);
  if (s.activations_other) std::printf(", %zu at other widths", s.activations_other);
  if (s.activations_float) std::printf(", %zu left float", s.activations_float);
  std::printf("; params %zu per-channel, %zu per-tensor (%s weights)\n", s.weights_per_channel,
              s.params_per_tensor, o.per_tensor_weights ? "per-tensor" : "per-channel");
  if (s.decode_tail_values)
    std::printf("decode tail: %zu values, %zu at 8 bit\n", s.decode_tail_values,
                s.decode_tail_8bit);
  if (o.saturation_safe)
    std::printf("saturation-safe: %lld weight codes changed in %lld convs\n",
                static_cast<long long>(s.saturation_safe_codes),
                static_cast<long long>(s.saturation_safe_convs));
  for (const std::string& line : s.io) std::printf("quantized %s\n", printable(line).c_str());
  std::printf("wrote %s\n", printable(out).c_str());
  if (!encodings.empty())
    std::printf("wrote %s (encodings %s)\n", printable(encodings).c_str(),
                encodings_format.c_str());
}

}  // namespace edgeq::cli
