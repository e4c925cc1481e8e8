#include "analysis/concat_spans.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "calib/range_scheme.h"
#include "core/text_format.h"

namespace edgeq {
namespace {}  // namespace

std::vector<ConcatSpan> concat_spans(const Graph& g, const Stats& stats, int bits) {
  auto mse = make_mse_scheme();
  std::vector<ConcatSpan> out;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Concat" || n.inputs.size() < 2) continue;
    ConcatSpan c;
    c.node = n.name;
    Histogram merged;
    bool complete = true;
    for (const std::string& in : n.inputs) {
      auto it = stats.values.find(in);
      if (it == stats.values.end() || it->second.empty()) {
        complete = false;
        break;
      }
      const Histogram& h = it->second;
      c.inputs.push_back(in);
      c.spans.push_back(std::max<double>(h.max(), 0) - std::min<double>(h.min(), 0));
      merged.merge(h);
    }
    if (!complete) continue;
    auto [lo, hi] = std::minmax_element(c.spans.begin(), c.spans.end());
    c.ratio = *lo > 0 ? *hi / *lo : INFINITY;
    Range r = mse->compute(merged, {bits, false});
    c.shared_lo = r.lo;
    c.shared_hi = r.hi;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const Histogram& h = stats.at(c.inputs[i]);
      double cut = std::max(0.0, h.max() - r.hi) + std::max(0.0, r.lo - h.min());
      double rel = c.spans[i] > 0 ? cut / c.spans[i] : 0;
      if (rel > c.cut_share) {
        c.cut_share = rel;
        c.cut_input = c.inputs[i];
        c.cut_fraction = (h.count_above(r.hi) + h.count_below(r.lo)) / double(h.count());
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Finding> concat_findings(const std::vector<ConcatSpan>& spans, bool shared, int bits) {
  std::vector<Finding> out;
  for (const ConcatSpan& c : spans) {
    size_t wide = std::max_element(c.spans.begin(), c.spans.end()) - c.spans.begin();
    size_t narrow = std::min_element(c.spans.begin(), c.spans.end()) - c.spans.begin();
    if (c.ratio > 3.0) {
      double levels = c.spans[narrow] / c.spans[wide] * ((1 << bits) - 1);
      Finding f{shared ? Severity::kWarning : Severity::kInfo,
                "concat-span",
                "",
                c.node,
                "",
                c.ratio,
                {}};
      f.message =
          "inputs differ " + format_number("%.1f", c.ratio) + "x in span (" + c.inputs[wide] + " " +
          format_number("%.4g", c.spans[wide]) + " vs " + c.inputs[narrow] + " " +
          format_number("%.4g", c.spans[narrow]) + "): under one shared " + std::to_string(bits) +
          "-bit encoding the narrow input gets " + format_number("%.3g", levels) + " levels";
      f.numbers = {{"ratio", c.ratio}, {"narrow_levels", levels}};
      out.push_back(f);
    }
    if (!c.cut_input.empty() && c.cut_share > 0.1) {
      Finding f{shared ? Severity::kWarning : Severity::kInfo,
                "concat-tail",
                c.cut_input,
                c.node,
                "",
                c.cut_fraction,
                {}};
      f.message = "a shared " + std::to_string(bits) + "-bit MSE encoding of the inputs [" +
                  format_number("%.4g", c.shared_lo) + ", " + format_number("%.4g", c.shared_hi) +
                  "] would cut " + format_number("%.0f", 100.0 * c.cut_share) +
                  "% of this input's range (" + format_number("%.3g", 100.0 * c.cut_fraction) +
                  "% of its values)";
      f.numbers = {{"shared_lo", c.shared_lo},
                   {"shared_hi", c.shared_hi},
                   {"cut_fraction", c.cut_fraction},
                   {"cut_share", c.cut_share}};
      out.push_back(f);
    }
  }
  return out;
}

}  // namespace edgeq
