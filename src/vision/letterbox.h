// Letterbox: the one preprocessing path for YOLO models (inference, calibration, evaluation).
// Matches Ultralytics LetterBox(auto=False, center=True, scaleup=True): scale by
// r = min(H/h, W/w), resize to (round(w*r), round(h*r)) with bilinear interpolation, centre with
// top/left = round(pad - 0.1), bottom/right = round(pad + 0.1), pad value 114; then BGR->RGB, /255,
// NCHW float32. round() is Python's round (half to even).
#pragma once
#include <opencv2/core.hpp>

#include "core/tensor.h"
#include "vision/detection.h"

namespace edgeq {

struct LetterboxInfo {
  double scale = 1;  // r: input pixels per original pixel
  int pad_left = 0;
  int pad_top = 0;
  int pad_right = 0;
  int pad_bottom = 0;
  int resized_w = 0;  // size of the image inside the padding
  int resized_h = 0;
  int orig_w = 0;
  int orig_h = 0;
  int input_w = 0;
  int input_h = 0;
};

// The geometry alone (no pixels), for an orig_w x orig_h image into input_w x input_h.
LetterboxInfo compute_letterbox(int orig_w, int orig_h, int input_w, int input_h);

// Resized and padded BGR image (8-bit, 3 channels), input_w x input_h.
cv::Mat letterbox_bgr(const cv::Mat& bgr, int in_h, int in_w, LetterboxInfo* info);

// The model input: [1,3,in_h,in_w] float32, RGB, values /255. Accepts 8-bit BGR, gray or BGRA.
Tensor preprocess_image(const cv::Mat& bgr, int in_h, int in_w, LetterboxInfo* info);

// Input-pixel coordinates -> original-image coordinates (subtract pad, divide by r, clip to the
// image), as Ultralytics scale_boxes / scale_coords with the pad the letterbox applied.
BoxXYXY unletterbox_box(const BoxXYXY& box, const LetterboxInfo& lb);
Keypoint unletterbox_point(const Keypoint& p, const LetterboxInfo& lb);

// Python's round(): nearest integer, ties to even.
int py_round(double x);

}  // namespace edgeq
