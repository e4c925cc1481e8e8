// GPTQ rounding (Frantar et al. 2022, after OBQ): the codes of a Conv weight chosen one input
// column at a time, each rounding error compensated on the columns not yet rounded, so that the
// layer's output on the calibration inputs moves as little as the grid allows. Only the rounding
// changes: every value lands on the grid weight_encoding already chose for its output channel.
//
// With H = sum over calibration columns of x x^T (ConvInputMoments::gram; GPTQ's 2 X X^T up to a
// factor that cancels), dampened by `damp` times its mean diagonal, and columns rounded in the
// order o_1, o_2, ...: factor H (permuted so that o_1 comes last) as L L^T. Then the value
// column o_a is rounded from is
//     w'_a = w_a + sum over columns b rounded before a of (w_b - q_b) L[b][a] / L[a][a],
// where q_b is column b's rounded value; this is GPTQ's sequential update with the upper
// Cholesky factor of H^-1 written in closed form (H^-1 = U^T U <=> H = U^-1 U^-T), so one
// Cholesky of H is all the linear algebra.
//
// Rows whose values the grid represents exactly (weights quantized before export) are left as they
// are; so are convs whose inputs never varied (H = 0). Results do not depend on the number of
// threads (each value is computed by one thread in a fixed order).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "encode/weight_encoding.h"
#include "repair/conv_input_moments.h"

namespace edgeq {

struct GptqOptions {
  double damp = 0.01;     // added to H's diagonal, times the diagonal's mean
  bool act_order = true;  // columns with the largest H diagonal (input energy) first
  // 8-bit codes: a code whose int16 pair partner (encode/saturation_safe.h) is already rounded is
  // clamped so the pair cannot overflow, and the clamp's error compensated like a rounding error;
  // rows whose nearest codes have such a pair are rounded even when their grid is exact.
  bool saturation_safe = false;
};

struct GptqResult {
  Tensor weight;                     // float, on the grid of the encoding
  int64_t rows = 0, rows_exact = 0;  // output channels, and those left as they were
};

// `w`: float Conv weight [O, C/group, kH, kW]; `enc`: its encoding (per channel along axis 0, or
// per tensor); `m`: moments with the Gram matrices of the conv's input (same group count, column
// length C/group * kH * kW).
GptqResult gptq_round(const Tensor& w, const TensorEncoding& enc, const ConvInputMoments& m,
                      const GptqOptions& opt, int threads);

}  // namespace edgeq
