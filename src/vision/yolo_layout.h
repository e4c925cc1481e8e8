// YoloLayout: how to read an Ultralytics raw head output [1, 4 + nc + nk*kd, anchors]
// (rows: cx, cy, w, h in input pixels; nc class scores after sigmoid; nk keypoints of kd values).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

struct YoloLayout {
  int num_classes = 0;
  int num_keypoints = 0;  // 0 for a detect model
  int keypoint_dims = 0;  // 2 (x, y) or 3 (x, y, visibility); 0 for a detect model
  int64_t num_anchors = 0;
  std::vector<std::string> class_names;  // from metadata; may be empty
  std::string source;                    // "metadata" or "channel count" (for messages)

  int channels() const { return 4 + num_classes + num_keypoints * keypoint_dims; }
  bool is_pose() const { return num_keypoints > 0; }
  std::string class_name(int cls) const;
};

// Works the layout out from the output shape and, when given, the Ultralytics metadata strings
// kpt_shape ("[17, 3]") and names ("{0: 'person'}"). Without metadata: 56 channels means
// 1 class + 17 keypoints (x, y, v); anything else is read as detect with channels - 4 classes.
// Throws an Error saying what was expected when the shape cannot be a YOLO output.
YoloLayout resolve_yolo_layout(const Shape& output_shape,
                               const std::optional<std::string>& kpt_shape = std::nullopt,
                               const std::optional<std::string>& names = std::nullopt);

// Same, reading kpt_shape / names from the model's metadata props.
YoloLayout yolo_layout_for(const Graph& g, const Shape& output_shape);

// Helpers for the metadata strings (exposed for tests).
std::vector<int> parse_int_list(const std::string& s);             // "[17, 3]" -> {17, 3}
std::vector<std::string> parse_class_names(const std::string& s);  // "{0: 'a', 1: 'b'}"

}  // namespace edgeq
