// Constant errors: what quantizing a constant costs in input pixels (docs/lessons.md, lesson 8).
// The YOLO decode reads constants (the anchor grid, the strides, the 2 of the box centre, the DFL
// conv's weights 0..15) whose error lands in every box and keypoint.
//
// Judged: each quantized constant that feeds a value with a pixel meaning (ir/head_decode.h)
// through Add / Sub / Mul / Div, Concat and move-only ops, and each quantized weight whose values
// lie on an integer grid. The values it should hold:
//   a float model with an encodings file: the model's own constants (exact errors);
//   a QDQ model: the nearest points of the coarsest power-of-two grid (1/256 .. 4096, coarser than
//     the encoding's step) that every dequantized value lies within half a step of (anchors
//     0.5..79.5 at uint8 step 0.312 -> the 0.5 grid); with no such grid, half a step bounds the
//     error of an encoding from min / max (codes reaching an end of the storage type), and any
//     other encoding is taken to be the constant's own exact grid.
// Pixels: a constant added or subtracted moves the value by its own error (grid-unit error x the
// largest stride, or the pixel error itself); one that multiplies or divides moves a position (at
// most the input size) by its relative error; a weight of a Conv over a Softmax (the DFL's
// expectation) moves the output by at most its largest error.
// Severity: error at >= 2 px, warning at >= 0.5 px, else info; integer-grid weights whose cost in
// pixels is unknown are warnings. Exact constants (under 0.001 px) are not reported.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "encode/weight_encoding.h"
#include "ir/graph.h"
#include "ir/head_decode.h"

namespace edgeq {

// `view`: the model's float view (analysis/qdq_view.h); `params`: the constants' encodings, from
// the QDQ model itself when `view_is_quantized` (the view then holds the dequantized values), else
// from an encodings file for the float model `view`.
std::vector<Finding> constant_findings(const Graph& view,
                                       const std::map<std::string, TensorEncoding>& params,
                                       bool view_is_quantized,
                                       const std::map<std::string, PixelMeaning>& pixels,
                                       double input_size);

}  // namespace edgeq
