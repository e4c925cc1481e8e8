#include "analysis/truncation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace edgeq {
namespace {

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string bits_name(const Encoding& e) {
  return std::string(e.is_signed ? "int" : "uint") + std::to_string(e.bitwidth);
}

}  // namespace

Clipping clipping(const Encoding& e, const Histogram& h) {
  Clipping c;
  if (h.empty()) return c;
  double half = 0.5 * e.scale;
  double lo_edge = e.min - half, hi_edge = e.max + half;
  if (h.min() < lo_edge) c.below = h.count_below(lo_edge);
  if (h.max() > hi_edge) c.above = h.count_above(hi_edge);
  c.fraction = (c.below + c.above) / static_cast<double>(h.count());
  c.over_lo = std::max(0.0, double(e.min) - h.min());
  c.over_hi = std::max(0.0, h.max() - double(e.max));
  c.steps_over = std::max(c.over_lo, c.over_hi) / e.scale;
  return c;
}

std::vector<Finding> truncation_findings(const std::map<std::string, TensorEncoding>& encodings,
                                         const Stats& stats,
                                         const std::map<std::string, PixelMeaning>& pixels,
                                         double input_size) {
  std::vector<Finding> out;
  for (const auto& [name, te] : encodings) {
    if (te.is_float || te.channels.size() != 1) continue;
    auto hs = stats.values.find(name);
    if (hs == stats.values.end() || hs->second.empty()) continue;
    const Histogram& h = hs->second;
    const Encoding& e = te.channels[0];
    Clipping c = clipping(e, h);
    if (c.steps_over <= 1.0 || c.below + c.above <= 0) continue;
    double span = std::max<double>(h.max(), 0) - std::min<double>(h.min(), 0);
    Finding f;
    f.kind = "truncation";
    f.value = name;
    f.numbers = {
        {"enc_min", e.min},         {"enc_max", e.max},          {"bits", double(e.bitwidth)},
        {"obs_min", h.min()},       {"obs_max", h.max()},        {"clipped_fraction", c.fraction},
        {"clipped_below", c.below}, {"clipped_above", c.above},  {"over_lo", c.over_lo},
        {"over_hi", c.over_hi},     {"steps_over", c.steps_over}};
    f.message = bits_name(e) + " [" + fmt("%.4g", e.min) + ", " + fmt("%.4g", e.max) +
                "] does not cover observed [" + fmt("%.4g", h.min()) + ", " + fmt("%.4g", h.max()) +
                "]: " + fmt("%.3g", 100.0 * c.fraction) + "% of values clipped";
    if (c.over_hi > 0) f.message += ", above by up to " + fmt("%.4g", c.over_hi);
    if (c.over_lo > 0) f.message += ", below by up to " + fmt("%.4g", c.over_lo);
    f.score = c.fraction + c.steps_over * 1e-9;
    bool severe = c.fraction >= 1e-3 || std::max(c.over_lo, c.over_hi) >= 0.25 * span;
    f.severity = severe ? Severity::kError : Severity::kWarning;

    auto px = pixels.find(name);
    if (px != pixels.end()) {
      f.severity = Severity::kError;
      f.score += 10.0;  // wrong boxes / keypoints: before every other truncation
      if (px->second.grid) {
        std::string pins;
        for (int s : px->second.strides) {
          double hi_px = e.max * s;
          if (c.over_hi <= 0 || (hi_px >= input_size && !pins.empty())) continue;
          if (pins.empty()) f.numbers["pin_px"] = hi_px, f.numbers["pin_stride"] = s;
          pins += std::string(pins.empty() ? "" : "; ") + fmt("%.2f", e.max) +
                  " grid units x stride " + std::to_string(s) + " = " + fmt("%.1f", hi_px) + " px";
          if (hi_px >= input_size) pins += " (beyond the input)";
        }
        if (!pins.empty()) f.message += "; box/keypoint outputs pin at " + pins;
        if (c.over_lo > 0 && !px->second.strides.empty()) {
          double lo_px = e.min * px->second.strides.front();
          f.numbers["pin_low_px"] = lo_px;
          f.message += "; low side pins at " + fmt("%.1f", lo_px) + " px (stride " +
                       std::to_string(px->second.strides.front()) + ")";
        }
      } else {
        if (c.over_hi > 0) {
          f.numbers["pin_px"] = e.max;
          f.message += "; pixel outputs pin at " + fmt("%.1f", e.max) + " px";
        }
        if (c.over_lo > 0) {
          f.numbers["pin_low_px"] = e.min;
          f.message += "; low side pins at " + fmt("%.1f", e.min) + " px";
        }
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace edgeq
