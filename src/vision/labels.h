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

// Parses label text for an image of img_w x img_h. `what` names the source in errors, which
// read "<what>:<line>: <problem>". Blank lines are skipped. Every object line must hold
// 5 numbers (detect) or 5 + nk*3 numbers (pose); a file mixing the two is an error.
std::vector<Label> parse_yolo_labels(const std::string& text, int img_w, int img_h,
                                     const std::string& what = "labels");
// The inverse of parse_yolo_labels: one line per object, normalized to img_w x img_h, 6 decimals;
// keypoints as "x y v".
std::string format_yolo_labels(const std::vector<Label>& labels, int img_w, int img_h);
// Reads a label file; a missing file means no objects (as in Ultralytics datasets).
std::vector<Label> read_yolo_labels(const std::string& path, int img_w, int img_h);

// Ultralytics' image -> label path: the last "/images/" becomes "/labels/", extension ".txt".
std::string label_path_for_image(const std::string& image_path);

}  // namespace edgeq
