#include "analysis/truncation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text_format.h"

namespace edgeq {
namespace {

std::string bits_name(const Encoding& e) {
  return std::string(e.is_signed ? "int" : "uint") + std::to_string(e.bitwidth);
}

}  // namespace

Clipping clipping(const Encoding& e, const Histogram& h, double unseen_below) {
  Clipping c;
  if (h.empty()) return c;
  double half = 0.5 * e.scale;
  double lo_edge = e.min - half, hi_edge = e.max + half;
  const double lo_seen = std::max(double(h.min()), unseen_below);
  if (lo_seen < lo_edge)
    c.below = h.count_below(lo_edge) - (h.min() < lo_seen ? h.count_below(lo_seen) : 0.0);
  if (h.max() > hi_edge) c.above = h.count_above(hi_edge);
  c.fraction = (c.below + c.above) / static_cast<double>(h.count());
  c.over_lo = std::max(0.0, double(e.min) - lo_seen);
  c.over_hi = std::max(0.0, h.max() - double(e.max));
  c.steps_over = std::max(c.over_lo, c.over_hi) / e.scale;
  return c;
}

std::vector<Finding> truncation_findings(const std::map<std::string, TensorEncoding>& encodings,
                                         const Stats& stats,
                                         const std::map<std::string, PixelMeaning>& pixels,
                                         double input_size,
                                         const std::map<std::string, double>& unseen_below) {
  std::vector<Finding> out;
  for (const auto& [name, te] : encodings) {
    if (te.is_float || te.channels.size() != 1) continue;
    auto hs = stats.values.find(name);
    if (hs == stats.values.end() || hs->second.empty()) continue;
    const Histogram& h = hs->second;
    const Encoding& e = te.channels[0];
    auto unseen = unseen_below.find(name);
    Clipping c = clipping(e, h, unseen == unseen_below.end() ? -HUGE_VAL : unseen->second);
    if (c.steps_over <= 1.0 || c.below + c.above <= 0) continue;
    Finding f;
    f.kind = "truncation";
    f.value = name;
    f.numbers = {
        {"enc_min", e.min},         {"enc_max", e.max},          {"bits", double(e.bitwidth)},
        {"obs_min", h.min()},       {"obs_max", h.max()},        {"clipped_fraction", c.fraction},
        {"clipped_below", c.below}, {"clipped_above", c.above},  {"over_lo", c.over_lo},
        {"over_hi", c.over_hi},     {"steps_over", c.steps_over}};
    f.message = bits_name(e) + " [" + format_number("%.4g", e.min) + ", " +
                format_number("%.4g", e.max) + "] does not cover observed [" +
                format_number("%.4g", h.min()) + ", " + format_number("%.4g", h.max()) +
                "]: " + format_number("%.3g", 100.0 * c.fraction) + "% of values clipped";
    bool hi_clip = c.above > 0, lo_clip = c.below > 0;
    if (hi_clip) f.message += ", above by up to " + format_number("%.4g", c.over_hi);
    if (lo_clip) f.message += ", below by up to " + format_number("%.4g", c.over_lo);
    // How bad: the distance clipped, relative to the encoding's range.
    double enc_span = std::max(double(e.max) - e.min, 1e-30);
    double rel = std::max(hi_clip ? c.over_hi : 0, lo_clip ? c.over_lo : 0) / enc_span;
    f.numbers["relative_overshoot"] = rel;
    f.score = rel + c.fraction;
    if (rel >= 0.05 && c.fraction >= 1e-4)
      f.severity = Severity::kError;
    else if (rel >= 0.01 || (rel >= 0.001 && c.fraction >= 1e-3))
      f.severity = Severity::kWarning;
    else
      f.severity = Severity::kInfo;

    // Values of the YOLO head with a pixel meaning: where outputs pin, in input pixels. An error
    // when a pin lies inside the input and clips by at least a pixel.
    auto px = pixels.find(name);
    if (px != pixels.end()) {
      bool grid = px->second.grid;
      std::vector<int> strides = grid ? px->second.strides : std::vector<int>{1};
      double worst_px = 0;  // largest clip, in pixels, at a pin inside the input
      bool outside = false;
      std::string pins;
      if (hi_clip) {
        for (int st : strides) {
          double pin = e.max * st, over = c.over_hi * st;
          bool inside = pin < input_size;
          if (!inside && !pins.empty()) continue;
          if (pins.empty()) f.numbers["pin_px"] = pin, f.numbers["pin_stride"] = st;
          pins += std::string(pins.empty() ? "" : "; ") +
                  (grid ? format_number("%.2f", e.max) + " grid units x stride " +
                              std::to_string(st) + " = "
                        : std::string()) +
                  format_number("%.1f", pin) + " px" + (inside ? "" : " (beyond the input)");
          if (inside) worst_px = std::max(worst_px, over);
          outside |= !inside && over >= 1;
        }
      }
      if (lo_clip) {
        double pin = e.min * strides.front(), over = c.over_lo * strides.front();
        f.numbers["pin_low_px"] = pin;
        pins += std::string(pins.empty() ? "" : "; ") + "low side " + format_number("%.1f", pin) +
                " px" + (grid ? " (stride " + std::to_string(strides.front()) + ")" : "") +
                (pin > 0 ? "" : " (outside the input)");
        if (pin > 0) worst_px = std::max(worst_px, over);
        outside |= pin <= 0 && over >= 1;
      }
      f.message +=
          std::string("; ") + (grid ? "box/keypoint" : "pixel") + " outputs pin at " + pins;
      f.numbers["clip_px"] = worst_px;
      if (worst_px >= 1) {
        f.severity = Severity::kError;
        f.score += 10.0;  // wrong boxes / keypoints inside the image: before everything else
      } else if (outside) {
        f.severity = std::max(f.severity, Severity::kWarning);
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace edgeq
