// The YOLO head's decode, found by structure (never by node names, whose numeric suffixes differ
// between exports):
//   stride Mul:  Mul(x, S) with S a constant of per-anchor strides (powers of two 4..128; a
//                quantized constant within 2% of them);
//   box decode:  Concat(Div(a, 2), Sub(b, c)) read by a stride Mul: the DFL decode's (cxy, wh)
//                in grid units (dist2bbox xywh);
//   pixel map:   which values are in grid units (a value read by a stride Mul, directly or
//                through a Concat or a move-only op) and which are already in pixels (outputs of
//                a stride Mul and what Concat / move-only ops make of them).
// Works on float graphs and on the float view of QDQ graphs (analysis/qdq_view.h).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_traits.h"

namespace edgeq {

struct StrideMul {
  int node = -1;
  std::string grid;          // the input in grid units
  std::string pixels;        // the output in input pixels
  std::vector<int> strides;  // distinct strides, ascending
};

struct BoxDecode {
  std::string concat_node;
  std::string concat;  // (cxy, wh) in grid units
  std::string centre;  // the Div output: cxy
  std::string size;    // the Sub output: wh
  // What the Div and Sub read: x1y1 + x2y2, x2y2 and x1y1 (the box corners, grid units).
  std::vector<std::string> corners;
  StrideMul to_pixels;
};

struct PixelMeaning {
  bool grid = false;         // grid units: pixel = value * stride
  std::vector<int> strides;  // for grid values
};

std::vector<StrideMul> find_stride_muls(const Graph& g);
std::optional<BoxDecode> find_box_decode(const Graph& g);
// Values with a pixel meaning: grid-unit values (with their strides) and pixel values.
std::map<std::string, PixelMeaning> pixel_meanings(const Graph& g);

}  // namespace edgeq
