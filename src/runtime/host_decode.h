// The decode of a raw-head model (ir/raw_head.h) on the host: from the head convolutions' outputs
// to the full model's output0 [1, 4 + nc + nk*kd, anchors] (rows cx, cy, w, h in input pixels,
// the class scores after the sigmoid, the keypoints x, y in input pixels and their visibility
// after the sigmoid), as Ultralytics' export computes it in the graph:
//   box:       per side, the softmax of reg_max logits and its expectation (the DFL) gives the
//              distances l, t, r, b from the anchor (cell centre x + 0.5, y + 0.5, grid units);
//              x1y1 = anchor - lt, x2y2 = anchor + rb, cxy = (x1y1 + x2y2) / 2, wh = x2y2 - x1y1,
//              times the stride;
//   class:     sigmoid;
//   keypoints: x = (raw * 2 + cell x) * stride, y likewise, visibility = sigmoid(raw).
// The detections then come from output0 as for any model (vision/postprocess.h, NMS included).
#pragma once
#include <map>
#include <string>

#include "core/tensor.h"
#include "ir/raw_head.h"

namespace edgeq {

// Throws naming the output when one is missing, not float32 or of another shape than the layout.
Tensor decode_raw_head(const RawHeadLayout& layout, const std::map<std::string, Tensor>& outputs);

}  // namespace edgeq
