#include "analysis/io_findings.h"

#include "core/text_format.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

// Scores and keypoint visibilities share an output with pixel coordinates: under one encoding
// they move in the output's step. Coarser than this many levels over [0, 1] is worth a warning.
constexpr double kMinScoreLevels = 64;
constexpr double kConfidence = 0.25;  // the default confidence threshold, for scale

Finding coded_finding(const CodedValue& c) {
  const Encoding& e = c.encoding;
  Finding f{Severity::kInfo, "io", c.name, "", "", 1.0, {{"bits", double(e.bitwidth)}}};
  f.numbers["step"] = e.scale;
  if (c.input) {
    f.message = "input '" + c.name + "' takes codes: " + e.describe() +
                (e.bitwidth == 8 && e.zero_point() == 0 && e.scale == 1.0f / 255
                     ? " (letterboxed 8-bit pixels exactly: pixel p is code p)"
                     : "");
    return f;
  }
  const double levels = 1.0 / e.scale;
  f.numbers["score_levels"] = levels;
  f.message = "output '" + c.name + "' returns codes: " + e.describe() +
              "; scores and visibilities (0..1) in it move in steps of " +
              format_number("%.3g", e.scale) + " (" + format_number("%.0f", levels) +
              " levels; the confidence threshold " + format_number("%.2f", kConfidence) + " is " +
              format_number("%.1f", kConfidence / e.scale) + " steps)";
  if (levels < kMinScoreLevels) {
    f.severity = Severity::kWarning;
    f.message += ": too coarse to rank detections; give this output 16 bit";
  }
  return f;
}

}  // namespace

std::vector<Finding> io_findings(const Graph& model, const TargetOps& target) {
  std::vector<Finding> out;
  const std::vector<CodedValue> coded = coded_io(model);
  for (const CodedValue& c : coded) out.push_back(coded_finding(c));
  if (!target.io.empty()) {
    Finding f{Severity::kInfo, "io-target", "", "", "", 0.5, {}};
    f.message = (coded.empty() ? "float I/O; on " : "quantized I/O; on ") + target.target + ": " +
                target.io +
                (coded.empty() && target.is_npu
                     ? " (quantizing with quantize_io 'both' writes the quantized-I/O variant)"
                     : "");
    out.push_back(f);
  }
  return out;
}

}  // namespace edgeq
