#include "vision/letterbox.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "core/error.h"

namespace edgeq {

int py_round(double x) {
  // std::nearbyint rounds ties to even under the default rounding mode, like Python's round().
  return static_cast<int>(std::nearbyint(x));
}

LetterboxInfo compute_letterbox(int orig_w, int orig_h, int input_w, int input_h) {
  EDGEQ_CHECK(orig_w > 0 && orig_h > 0, "letterbox: empty image (", orig_w, "x", orig_h, ")");
  EDGEQ_CHECK(input_w > 0 && input_h > 0, "letterbox: bad model input size ", input_w, "x",
              input_h);
  LetterboxInfo lb;
  lb.orig_w = orig_w;
  lb.orig_h = orig_h;
  lb.input_w = input_w;
  lb.input_h = input_h;
  lb.scale = std::min(static_cast<double>(input_h) / orig_h, static_cast<double>(input_w) / orig_w);
  // Ultralytics would hand cv2.resize a zero size for extreme aspect ratios; keep one pixel.
  lb.resized_w = std::max(1, py_round(orig_w * lb.scale));
  lb.resized_h = std::max(1, py_round(orig_h * lb.scale));
  const double dw = (input_w - lb.resized_w) / 2.0;
  const double dh = (input_h - lb.resized_h) / 2.0;
  lb.pad_top = py_round(dh - 0.1);
  lb.pad_bottom = py_round(dh + 0.1);
  lb.pad_left = py_round(dw - 0.1);
  lb.pad_right = py_round(dw + 0.1);
  return lb;
}

static cv::Mat as_bgr8(const cv::Mat& img) {
  EDGEQ_CHECK(!img.empty(), "letterbox: empty image");
  EDGEQ_CHECK(img.depth() == CV_8U, "letterbox: expected an 8-bit image, got depth ", img.depth());
  cv::Mat bgr;
  switch (img.channels()) {
    case 3:
      return img;
    case 1:
      cv::cvtColor(img, bgr, cv::COLOR_GRAY2BGR);
      return bgr;
    case 4:
      cv::cvtColor(img, bgr, cv::COLOR_BGRA2BGR);
      return bgr;
    default:
      fail("letterbox: expected 1, 3 or 4 channels, got ", img.channels());
  }
}

cv::Mat letterbox_bgr(const cv::Mat& image, int in_h, int in_w, LetterboxInfo* info) {
  cv::Mat bgr = as_bgr8(image);
  LetterboxInfo lb = compute_letterbox(bgr.cols, bgr.rows, in_w, in_h);
  cv::Mat resized = bgr;
  if (lb.resized_w != bgr.cols || lb.resized_h != bgr.rows)
    cv::resize(bgr, resized, cv::Size(lb.resized_w, lb.resized_h), 0, 0, cv::INTER_LINEAR);
  cv::Mat out;
  cv::copyMakeBorder(resized, out, lb.pad_top, lb.pad_bottom, lb.pad_left, lb.pad_right,
                     cv::BORDER_CONSTANT, cv::Scalar(114, 114, 114));
  EDGEQ_CHECK(out.cols == in_w && out.rows == in_h, "letterbox: produced ", out.cols, "x", out.rows,
              " instead of ", in_w, "x", in_h);
  if (info) *info = lb;
  return out;
}

Tensor preprocess_image(const cv::Mat& bgr, int in_h, int in_w, LetterboxInfo* info) {
  cv::Mat padded = letterbox_bgr(bgr, in_h, in_w, info);
  Tensor t = Tensor::uninitialized(DType::kFloat32, {1, 3, in_h, in_w});  // every value written
  float* r = t.data<float>();
  const size_t plane = static_cast<size_t>(in_h) * in_w;
  float* g = r + plane;
  float* b = g + plane;
  // v / 255 by division (not multiplication by 1/255), so values equal torch's uint8 -> float32
  // / 255; looked up, as there are only 256 of them.
  static const std::array<float, 256> scaled = [] {
    std::array<float, 256> t{};
    for (int v = 0; v < 256; ++v) t[v] = static_cast<float>(v) / 255.0f;
    return t;
  }();
  for (int y = 0; y < in_h; ++y) {
    const uint8_t* row = padded.ptr<uint8_t>(y);
    const size_t o = static_cast<size_t>(y) * in_w;
    for (int x = 0; x < in_w; ++x) {
      b[o + x] = scaled[row[3 * x + 0]];
      g[o + x] = scaled[row[3 * x + 1]];
      r[o + x] = scaled[row[3 * x + 2]];
    }
  }
  return t;
}

static float clampf(float v, float lo, float hi) {
  return std::min(std::max(v, lo), hi);
}

BoxXYXY unletterbox_box(const BoxXYXY& box, const LetterboxInfo& lb) {
  const float r = static_cast<float>(lb.scale);
  const float w = static_cast<float>(lb.orig_w), h = static_cast<float>(lb.orig_h);
  return {clampf((box[0] - lb.pad_left) / r, 0, w), clampf((box[1] - lb.pad_top) / r, 0, h),
          clampf((box[2] - lb.pad_left) / r, 0, w), clampf((box[3] - lb.pad_top) / r, 0, h)};
}

Keypoint unletterbox_point(const Keypoint& p, const LetterboxInfo& lb) {
  const float r = static_cast<float>(lb.scale);
  return {clampf((p.x - lb.pad_left) / r, 0, static_cast<float>(lb.orig_w)),
          clampf((p.y - lb.pad_top) / r, 0, static_cast<float>(lb.orig_h)), p.v};
}

}  // namespace edgeq
