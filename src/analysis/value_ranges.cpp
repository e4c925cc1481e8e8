#include "analysis/value_ranges.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text_format.h"

namespace edgeq {
namespace {

bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}

}  // namespace

ValueRange value_range(const std::string& value, const Histogram& h) {
  ValueRange r;
  r.value = value;
  r.count = h.count();
  r.non_finite = h.nan_count() + h.inf_count();
  if (h.empty()) return r;
  r.min = h.min();
  r.max = h.max();
  r.p0001 = h.quantile(0.0001);
  r.p9999 = h.quantile(0.9999);
  r.span = std::max(r.max, 0.0) - std::min(r.min, 0.0);
  r.step8 = r.span / 255.0;
  r.step16 = r.span / 65535.0;
  return r;
}

std::vector<Finding> range_findings(const Stats& stats,
                                    const std::map<std::string, PixelMeaning>& pixels,
                                    const std::map<std::string, TensorEncoding>& encodings) {
  std::vector<Finding> out;
  for (const auto& [name, h] : stats.values) {
    ValueRange r = value_range(name, h);
    if (r.non_finite) {
      Finding f{Severity::kError, "range", name, "", "", 1e9, {}};
      f.message = "held " + std::to_string(h.nan_count()) + " NaN and " +
                  std::to_string(h.inf_count()) + " infinite values in FP32 calibration";
      f.numbers = {{"nan", double(h.nan_count())}, {"inf", double(h.inf_count())}};
      out.push_back(f);
    }
    if (h.empty()) continue;
    auto enc = encodings.find(name);
    int bits = enc == encodings.end() || enc->second.is_float || enc->second.channels.empty()
                   ? 0
                   : enc->second.channels[0].bitwidth;
    auto px = pixels.find(name);
    if (px != pixels.end() && !px->second.grid && r.step8 > 1.0 && bits != 16 && bits != 32) {
      // Pixel-space values at 8 bit: a step wider than a pixel (docs/lessons.md, lesson 3).
      Finding f{
          bits == 8 ? Severity::kWarning : Severity::kInfo, "range", name, "", "", r.step8, {}};
      f.message = "pixel-space value spans " + format_number("%.1f", r.span) +
                  " px: " + format_number("%.2f", r.step8) + " px a step at 8 bit, " +
                  format_number("%.4f", r.step16) + " px at 16 bit" +
                  (bits == 8 ? " (it is encoded at 8 bit: use 16)" : "");
      f.numbers = {{"span", r.span}, {"step8", r.step8}, {"step16", r.step16}};
      out.push_back(f);
    }
    double core = r.p9999 - r.p0001;
    if (r.count >= 10000 && core > 0 && (r.max - r.min) / core > 4.0) {
      Finding f{Severity::kInfo, "range", name, "", "", (r.max - r.min) / core, {}};
      f.message = "long tail: [min, max] = [" + format_number("%.4g", r.min) + ", " +
                  format_number("%.4g", r.max) + "] is " +
                  format_number("%.1f", (r.max - r.min) / core) + "x the p0.01..p99.99 range [" +
                  format_number("%.4g", r.p0001) + ", " + format_number("%.4g", r.p9999) +
                  "]; a clipping range scheme will cut it";
      f.numbers = {{"min", r.min}, {"max", r.max}, {"p0.01", r.p0001}, {"p99.99", r.p9999}};
      out.push_back(f);
    }
  }
  return out;
}

std::vector<Finding> tap_block_findings(const Stats& stats) {
  std::vector<std::pair<std::string, double>> spans;
  for (const auto& [name, h] : stats.values)
    if ((starts_with(name, "tap_avg") || starts_with(name, "tap_max")) && !h.empty())
      spans.push_back({name, value_range(name, h).span});
  if (spans.size() < 2) return {};
  auto [lo, hi] = std::minmax_element(
      spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  double ratio = lo->second > 0 ? hi->second / lo->second : INFINITY;
  Finding f{ratio > 3 ? Severity::kWarning : Severity::kInfo, "tap-blocks", "", "", "", ratio, {}};
  f.message = "tap blocks differ " + format_number("%.1f", ratio) + "x in span (" + hi->first +
              " " + format_number("%.3g", hi->second) + " vs " + lo->first + " " +
              format_number("%.3g", lo->second) + ")" +
              (ratio > 3 ? ": quantize each tap on its own, never with one shared encoding" : "");
  f.numbers = {{"ratio", ratio},
               {"max_span", hi->second},
               {"min_span", lo->second},
               {"taps", double(spans.size())}};
  for (const auto& [n, s] : spans) f.numbers["span:" + n] = s;
  return {f};
}

}  // namespace edgeq
