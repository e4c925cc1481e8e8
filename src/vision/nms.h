// Non-maximum suppression, class-aware, as Ultralytics non_max_suppression (agnostic=False):
// candidates sorted by score (descending, ties in input order), a candidate is dropped when its
// IoU with an already kept box of the same class is > iou_threshold; at most max_det kept.
#pragma once
#include <vector>

#include "vision/yolo_decode.h"

namespace edgeq {

// Indices into `cands` of the kept candidates, highest score first.
std::vector<int> nms(const std::vector<Candidate>& cands, float iou_threshold, int max_det);

}  // namespace edgeq
