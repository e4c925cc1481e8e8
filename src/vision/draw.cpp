#include "vision/draw.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/error.h"
#include "core/file_io.h"

namespace edgeq {

const std::vector<std::pair<int, int>>& coco17_skeleton() {
  // Ultralytics lists these 1-based: [16,14],[14,12],[17,15],[15,13],[12,13],[6,12],[7,13],[6,7],
  // [6,8],[7,9],[8,10],[9,11],[2,3],[1,2],[1,3],[2,4],[3,5],[4,6],[5,7].
  static const std::vector<std::pair<int, int>> pairs = {
      {15, 13}, {13, 11}, {16, 14}, {14, 12}, {11, 12}, {5, 11}, {6, 12}, {5, 6}, {5, 7}, {6, 8},
      {7, 9},   {8, 10},  {1, 2},   {0, 1},   {0, 2},   {1, 3},  {2, 4},  {3, 5}, {4, 6}};
  return pairs;
}

// Limb colours by body part (BGR): legs, torso, arms, head.
static cv::Scalar limb_color(size_t i) {
  if (i < 4) return {255, 128, 0};   // legs
  if (i < 8) return {255, 51, 255};  // hips/torso/shoulders
  if (i < 12) return {0, 128, 255};  // arms
  return {0, 255, 0};                // face
}

static cv::Scalar class_color(int cls) {
  static const cv::Scalar palette[] = {
      {56, 56, 255}, {151, 157, 255}, {31, 112, 255}, {29, 178, 255}, {49, 210, 207},
      {10, 249, 72}, {23, 204, 146},  {134, 219, 61}, {52, 147, 26},  {187, 212, 0}};
  return palette[static_cast<unsigned>(cls) % 10];
}

void draw_detections(cv::Mat& img, const std::vector<Detection>& dets, const YoloLayout* layout,
                     const DrawOptions& opt) {
  EDGEQ_CHECK(img.type() == CV_8UC3, "draw: expected an 8-bit BGR image");
  const int lw =
      opt.thickness > 0
          ? opt.thickness
          : std::max(1, static_cast<int>(std::lround((img.rows + img.cols) / 2 * 0.003)));
  const auto& skel = coco17_skeleton();
  for (const Detection& d : dets) {
    const cv::Scalar col = class_color(d.cls);
    const cv::Point p1(static_cast<int>(d.box[0]), static_cast<int>(d.box[1]));
    const cv::Point p2(static_cast<int>(d.box[2]), static_cast<int>(d.box[3]));
    cv::rectangle(img, p1, p2, col, lw, cv::LINE_AA);

    char label[128];
    const std::string name = layout ? layout->class_name(d.cls) : "class" + std::to_string(d.cls);
    std::snprintf(label, sizeof(label), "%s %.2f", name.c_str(), d.score);
    const double fs = lw / 3.0;
    int base = 0;
    const cv::Size ts =
        cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, fs, std::max(lw - 1, 1), &base);
    const bool above = p1.y - ts.height - 3 >= 0;
    const cv::Point t1(p1.x, above ? p1.y - ts.height - 3 : p1.y);
    const cv::Point t2(p1.x + ts.width, above ? p1.y : p1.y + ts.height + 3);
    cv::rectangle(img, t1, t2, col, cv::FILLED, cv::LINE_AA);
    cv::putText(img, label, cv::Point(t1.x, t2.y - 2), cv::FONT_HERSHEY_SIMPLEX, fs,
                cv::Scalar(255, 255, 255), std::max(lw - 1, 1), cv::LINE_AA);

    const auto visible = [&](int k) {
      if (k >= static_cast<int>(d.kpts.size())) return false;
      const Keypoint& p = d.kpts[k];
      return p.v >= opt.kpt_conf && p.x > 0 && p.y > 0 && p.x < img.cols && p.y < img.rows;
    };
    if (d.kpts.size() == 17) {
      for (size_t i = 0; i < skel.size(); ++i) {
        const auto [a, b] = skel[i];
        if (!visible(a) || !visible(b)) continue;
        cv::line(img, cv::Point(static_cast<int>(d.kpts[a].x), static_cast<int>(d.kpts[a].y)),
                 cv::Point(static_cast<int>(d.kpts[b].x), static_cast<int>(d.kpts[b].y)),
                 limb_color(i), std::max(lw / 2, 1) + 1, cv::LINE_AA);
      }
    }
    for (size_t k = 0; k < d.kpts.size(); ++k) {
      if (!visible(static_cast<int>(k))) continue;
      cv::circle(img, cv::Point(static_cast<int>(d.kpts[k].x), static_cast<int>(d.kpts[k].y)),
                 lw + 2, cv::Scalar(0, 0, 255), cv::FILLED, cv::LINE_AA);
    }
  }
}

void write_image_atomic(const std::string& path, const cv::Mat& img) {
  const std::string ext = std::filesystem::path(path).extension().string();
  EDGEQ_CHECK(!ext.empty(), "cannot tell the image format of '", path, "' (no extension)");
  std::vector<uint8_t> buf;
  bool ok = false;
  try {
    ok = cv::imencode(ext, img, buf);
  } catch (const cv::Exception& e) {
    fail("cannot encode image ", path, ": ", e.err);
  }
  EDGEQ_CHECK(ok, "cannot encode image ", path, " as ", ext);
  write_file_atomic(path, std::string(buf.begin(), buf.end()));
}

}  // namespace edgeq
