// Letterbox geometry against the Ultralytics LetterBox formulas evaluated by hand, the inverse
// mapping, and the pixels of the model input (pad value, RGB order, NCHW).
#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "core/error.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

struct Case {
  int w, h, in_w, in_h;
  int new_w, new_h, left, top, right, bottom;
};

// Each row worked out by hand from r = min(H/h, W/w), new = round(w*r), round(h*r) (Python
// round, ties to even), dw = (W - new_w)/2, left = round(dw - 0.1), right = round(dw + 0.1).
const Case kCases[] = {
    // 333x517: r = 640/517, 333r = 412.22 -> 412; dw = 114 -> 114/114; dh = 0.
    {333, 517, 640, 640, 412, 640, 114, 0, 114, 0},
    // 640x480: r = 1, no resize; dh = 80.
    {640, 480, 640, 640, 640, 480, 0, 80, 0, 80},
    // 1x1000: r = 0.64; 0.64 -> 1; dw = 319.5 -> left round(319.4) = 319, right round(319.6) = 320.
    {1, 1000, 640, 640, 1, 640, 319, 0, 320, 0},
    // 1000x1: the same transposed.
    {1000, 1, 640, 640, 640, 1, 0, 319, 0, 320},
    // 641x641: r = 640/641 -> 640x640, no pad.
    {641, 641, 640, 640, 640, 640, 0, 0, 0, 0},
    // Ties: 5x1280, r = 0.5, 2.5 rounds to 2 (even); dw = 319.
    {5, 1280, 640, 640, 2, 640, 319, 0, 319, 0},
    // 7x1280: 3.5 rounds to 4 (even); dw = 318.
    {7, 1280, 640, 640, 4, 640, 318, 0, 318, 0},
    // Non-square model input 640x384 for a 1280x720 image: r = min(384/720, 640/1280) = 0.5,
    // 640x360, dh = 12.
    {1280, 720, 640, 384, 640, 360, 0, 12, 0, 12},
    // Upscaling (scaleup=True): 100x50 into 640: r = 6.4 -> 640x320, dh = 160.
    {100, 50, 640, 640, 640, 320, 0, 160, 0, 160},
};

TEST(VisionLetterbox, GeometryMatchesUltralyticsFormulas) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h));
    LetterboxInfo lb = compute_letterbox(c.w, c.h, c.in_w, c.in_h);
    EXPECT_DOUBLE_EQ(lb.scale, std::min(double(c.in_h) / c.h, double(c.in_w) / c.w));
    EXPECT_EQ(lb.resized_w, c.new_w);
    EXPECT_EQ(lb.resized_h, c.new_h);
    EXPECT_EQ(lb.pad_left, c.left);
    EXPECT_EQ(lb.pad_top, c.top);
    EXPECT_EQ(lb.pad_right, c.right);
    EXPECT_EQ(lb.pad_bottom, c.bottom);
    EXPECT_EQ(lb.pad_left + lb.resized_w + lb.pad_right, c.in_w);
    EXPECT_EQ(lb.pad_top + lb.resized_h + lb.pad_bottom, c.in_h);
  }
}

TEST(VisionLetterbox, PyRoundIsHalfToEven) {
  EXPECT_EQ(py_round(0.5), 0);
  EXPECT_EQ(py_round(1.5), 2);
  EXPECT_EQ(py_round(2.5), 2);
  EXPECT_EQ(py_round(-0.1), 0);
  EXPECT_EQ(py_round(319.6), 320);
}

TEST(VisionLetterbox, ImageHasModelSizeForOddShapes) {
  for (const Case& c : kCases) {
    cv::Mat img(c.h, c.w, CV_8UC3, cv::Scalar(10, 20, 30));
    LetterboxInfo lb;
    cv::Mat out = letterbox_bgr(img, c.in_h, c.in_w, &lb);
    EXPECT_EQ(out.cols, c.in_w);
    EXPECT_EQ(out.rows, c.in_h);
    EXPECT_EQ(lb.orig_w, c.w);
    EXPECT_EQ(lb.orig_h, c.h);
  }
}

TEST(VisionLetterbox, InverseMapsBackAndClips) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h));
    LetterboxInfo lb = compute_letterbox(c.w, c.h, c.in_w, c.in_h);
    const double r = std::min(double(c.in_h) / c.h, double(c.in_w) / c.w);
    // A box inside the image, sent forward by x*r + left and back.
    const double x1 = 0.2 * c.w, y1 = 0.3 * c.h, x2 = 0.7 * c.w, y2 = 0.9 * c.h;
    BoxXYXY in{float(x1 * r + c.left), float(y1 * r + c.top), float(x2 * r + c.left),
               float(y2 * r + c.top)};
    BoxXYXY back = unletterbox_box(in, lb);
    const double tol = 1e-3 * std::max(c.w, c.h);
    EXPECT_NEAR(back[0], x1, tol);
    EXPECT_NEAR(back[1], y1, tol);
    EXPECT_NEAR(back[2], x2, tol);
    EXPECT_NEAR(back[3], y2, tol);
    // Corners of the model input lie in the padding (or on the edge): clipped to the image.
    BoxXYXY all = unletterbox_box({-5.0f, -5.0f, float(c.in_w + 5), float(c.in_h + 5)}, lb);
    EXPECT_FLOAT_EQ(all[0], 0);
    EXPECT_FLOAT_EQ(all[1], 0);
    EXPECT_FLOAT_EQ(all[2], float(c.w));
    EXPECT_FLOAT_EQ(all[3], float(c.h));
    Keypoint p =
        unletterbox_point({float(0.5 * c.w * r + c.left), float(0.5 * c.h * r + c.top), 0.7f}, lb);
    EXPECT_NEAR(p.x, 0.5 * c.w, tol);
    EXPECT_NEAR(p.y, 0.5 * c.h, tol);
    EXPECT_FLOAT_EQ(p.v, 0.7f);
    Keypoint q = unletterbox_point({-100.0f, float(c.in_h + 100), 1.0f}, lb);
    EXPECT_FLOAT_EQ(q.x, 0);
    EXPECT_FLOAT_EQ(q.y, float(c.h));
  }
}

// 64 wide x 32 high: left half pure blue, right half pure red (BGR). Model input 64x64: r = 1,
// no resize, dh = 16 -> rows 0..15 and 48..63 are padding.
TEST(VisionLetterbox, PixelsPadIs114AndChannelsAreRGB) {
  cv::Mat img(32, 64, CV_8UC3, cv::Scalar(0, 0, 255));
  img(cv::Rect(0, 0, 32, 32)).setTo(cv::Scalar(255, 0, 0));
  LetterboxInfo lb;
  Tensor t = preprocess_image(img, 64, 64, &lb);
  ASSERT_EQ(t.shape(), (Shape{1, 3, 64, 64}));
  ASSERT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(lb.pad_top, 16);
  const float* d = t.data<float>();
  auto at = [&](int c, int y, int x) { return d[(c * 64 + y) * 64 + x]; };
  const float pad = 114.0f / 255.0f;
  for (int c = 0; c < 3; ++c)
    for (int x = 0; x < 64; ++x) {
      EXPECT_EQ(at(c, 0, x), pad);
      EXPECT_EQ(at(c, 15, x), pad);
      EXPECT_EQ(at(c, 48, x), pad);
      EXPECT_EQ(at(c, 63, x), pad);
    }
  // Blue half: channel 0 is R = 0, channel 2 is B = 1.
  EXPECT_EQ(at(0, 20, 5), 0.0f);
  EXPECT_EQ(at(1, 20, 5), 0.0f);
  EXPECT_EQ(at(2, 20, 5), 1.0f);
  // Red half.
  EXPECT_EQ(at(0, 40, 60), 1.0f);
  EXPECT_EQ(at(1, 40, 60), 0.0f);
  EXPECT_EQ(at(2, 40, 60), 0.0f);
}

// With a resize (128x64 -> 64x32) uniform regions keep their exact value; padding stays 114.
TEST(VisionLetterbox, PixelsAfterResize) {
  cv::Mat img(64, 128, CV_8UC3, cv::Scalar(0, 0, 255));
  img(cv::Rect(0, 0, 64, 64)).setTo(cv::Scalar(255, 0, 0));
  LetterboxInfo lb;
  Tensor t = preprocess_image(img, 64, 64, &lb);
  EXPECT_DOUBLE_EQ(lb.scale, 0.5);
  EXPECT_EQ(lb.pad_top, 16);
  const float* d = t.data<float>();
  auto at = [&](int c, int y, int x) { return d[(c * 64 + y) * 64 + x]; };
  EXPECT_EQ(at(2, 30, 10), 1.0f);
  EXPECT_EQ(at(0, 30, 10), 0.0f);
  EXPECT_EQ(at(0, 30, 55), 1.0f);
  EXPECT_EQ(at(1, 5, 30), 114.0f / 255.0f);
  EXPECT_EQ(at(1, 60, 30), 114.0f / 255.0f);
}

TEST(VisionLetterbox, GrayImageBecomesThreeEqualChannels) {
  cv::Mat img(10, 10, CV_8UC1, cv::Scalar(51));
  Tensor t = preprocess_image(img, 10, 10, nullptr);
  const float* d = t.data<float>();
  for (int c = 0; c < 3; ++c) EXPECT_EQ(d[c * 100 + 55], 51.0f / 255.0f);
}

TEST(VisionLetterbox, RejectsEmptyImage) {
  EXPECT_THROW(preprocess_image(cv::Mat(), 640, 640, nullptr), Error);
}

}  // namespace
}  // namespace edgeq
