// The YOLO11 Detect / Pose head (ultralytics/nn/modules/head.py) with the export-time decode:
// DFL box distances -> xywh around the anchors x stride, sigmoid class scores and, for Pose,
// keypoints (raw * 2 + anchor - 0.5) * stride with sigmoid visibility. Output [1, 4+nc(+nk), A].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "zoo/ultra_builder.h"

namespace edgeq::zoo {

struct HeadSpec {
  int64_t nc = 80;      // classes
  int64_t nkpt = 0;     // keypoints (0: plain Detect)
  int64_t kpt_dim = 3;  // x, y, visibility
  int64_t reg_max = 16;
  // Index of the blank gray frame in the calibration batch (-1: none); class biases are
  // lowered until it scores well below the 0.25 threshold everywhere.
  int64_t blank_probe = -1;
};

// Builds the head at scope s over the P3/P4/P5 features with their strides; names the final
// value `output` and returns its channel count (4 + nc + nkpt * kpt_dim).
int64_t yolo_head(UltraBuilder& b, const Scope& s, const std::vector<Feat>& feats,
                  const std::vector<int64_t>& strides, const HeadSpec& spec,
                  const std::string& output);

}  // namespace edgeq::zoo
