// Cross-layer equalization (Nagel et al. 2019, "Data-Free Quantization", section 4.1) of a Conv
// followed by a depthwise Conv: output channel c of the first conv is divided by s_c (weights and
// bias) and the depthwise channels reading it are multiplied by s_c, with
//     s_c = sqrt(r1_c / r2_c),   r1_c, r2_c = max |w| of channel c in the first / second conv,
// so both ranges become sqrt(r1_c * r2_c): per-tensor or per-channel grids then lose less on the
// channels whose range was far from the others'. The float model computes the same function as
// long as everything between the two convs commutes with a positive per-channel scale
// (op_traits' commutes_with_channel_scale: Relu, LeakyRelu, MaxPool, Identity). SiLU does not
// (SiLU(x / s) != SiLU(x) / s), so a Conv -> SiLU -> depthwise Conv pair is found but left alone.
//
// Only the values between the two convs change (their ranges shrink or grow per channel); the
// caller recomputes their statistics.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// One depthwise Conv (group == input channels, one weight channel per group) and what precedes it.
struct EqualizationCandidate {
  std::string second;                // the depthwise Conv node
  std::string first;                 // the Conv before it, "" when there is none
  std::vector<std::string> between;  // values from first's output to second's input, in order
  std::string blocked;               // why the pair cannot be equalized; "" when it can

  bool applicable() const { return blocked.empty(); }
};

// Every depthwise Conv of `g` with a constant weight, in graph order, with its pair or the reason
// there is none ("SiLU between: not positively homogeneous", "... is also read by ...", ...).
std::vector<EqualizationCandidate> find_equalization_pairs(const Graph& g);

struct EqualizedPair {
  std::string first, second;
  double spread_before = 0, spread_after = 0;  // largest / smallest channel range, both convs
};

// Rescales the weights (and the first conv's bias) of every applicable candidate in `g`.
std::vector<EqualizedPair> equalize_pairs(Graph& g,
                                          const std::vector<EqualizationCandidate>& candidates);

// "7 depthwise convs, 0 equalized: 6 SiLU between ..., 1 ..." for the quantize summary.
std::string describe_equalization(const std::vector<EqualizationCandidate>& candidates);

}  // namespace edgeq
