// YOLO txt labels: one object per line, "cls cx cy w h" (normalized to the image size), followed
// for pose datasets by nk keypoints as "x y v" (or "x y"), also normalized.
#pragma once
#include <string>
#include <vector>

#include "vision/detection.h"

namespace edgeq {

struct Label {
  int cls = 0;
  BoxXYXY box{};               // x1, y1, x2, y2 in image pixels
  std::vector<Keypoint> kpts;  // image pixels; v as written (0 = not labelled)
};

// What a model predicts, which its label files must fit (0: not checked).
struct LabelSchema {
  int classes = 0;    // class ids lie in 0..classes-1
  int keypoints = 0;  // an object's keypoints, when it has any: exactly this many
};

// The smallest box width or height (a fraction of the image) a label may give: a box must have an
// area, and one this small comes back at least as large through float pixels and 6 decimals.
inline constexpr double kMinLabelBoxSize = 1e-6;

// Parses label text for an image of img_w x img_h. `what` names the source in errors, which
// read "<what>:<line>: <problem>". A UTF-8 byte order mark at the start and blank lines are
// skipped. Every object line must hold 5 numbers (detect) or 5 + nk*3 or 5 + nk*2 numbers (pose);
// a file mixing the two is an error. Values are checked: the class a non-negative integer (below
// schema.classes when given), the box centre within the image ([0, 1]), its width and height at
// least kMinLabelBoxSize, keypoint visibilities within 0..2, keypoints schema.keypoints per object.
std::vector<Label> parse_yolo_labels(const std::string& text, int img_w, int img_h,
                                     const std::string& what = "labels",
                                     const LabelSchema& schema = {});
// The inverse of parse_yolo_labels: one line per object, normalized to img_w x img_h, 6 decimals;
// keypoints as "x y v".
std::string format_yolo_labels(const std::vector<Label>& labels, int img_w, int img_h);
// Reads a label file; a missing file means no objects (as in Ultralytics datasets).
std::vector<Label> read_yolo_labels(const std::string& path, int img_w, int img_h,
                                    const LabelSchema& schema = {});

// Ultralytics' image -> label path: the last "/images/" becomes "/labels/", extension ".txt".
std::string label_path_for_image(const std::string& image_path);

}  // namespace edgeq
