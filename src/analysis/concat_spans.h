// Concat spans: the observed span of each Concat input and the ratio of the widest to the
// narrowest (> 3x: the narrow input loses most of its levels under one shared encoding), and the
// tail a shared encoding would cut: the MSE range of the inputs' merged histogram (what an
// MSE-minimizing quantizer picks for a shared encoding) compared with each input's range; a
// finding when it cuts more than 10% of an input's span.
#pragma once
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "calib/stats.h"
#include "ir/graph.h"

namespace edgeq {

struct ConcatSpan {
  std::string node;
  std::vector<std::string> inputs;
  std::vector<double> spans;            // max(max, 0) - min(min, 0) per input
  double ratio = 0;                     // widest / narrowest (inf when one is 0)
  double shared_lo = 0, shared_hi = 0;  // MSE range of the merged histogram at `bits`
  std::string cut_input;                // the input whose range that range cuts most ("" when none)
  double cut_share = 0;                 // share of cut_input's span beyond the shared range
  double cut_fraction = 0;              // fraction of cut_input's values beyond it
};

// Concats whose inputs all have statistics.
std::vector<ConcatSpan> concat_spans(const Graph& g, const Stats& stats, int bits);

// `shared`: whether the target forces one encoding across a Concat (warnings) or not (info).
std::vector<Finding> concat_findings(const std::vector<ConcatSpan>& spans, bool shared, int bits);

}  // namespace edgeq
