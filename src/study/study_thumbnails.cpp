#include "study/study_thumbnails.h"

#include <algorithm>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/base64.h"
#include "core/error.h"
#include "vision/image_io.h"

namespace edgeq {

StudyThumbnail make_thumbnail(const std::string& path, int max_side, int quality) {
  const cv::Mat bgr = read_image(path);
  StudyThumbnail t;
  t.name = std::filesystem::path(path).filename().string();
  t.width = bgr.cols;
  t.height = bgr.rows;
  const double scale = std::min(1.0, static_cast<double>(max_side) / std::max(bgr.cols, bgr.rows));
  cv::Mat small;
  cv::resize(bgr, small, cv::Size(), scale, scale, cv::INTER_AREA);
  std::vector<uchar> jpg;
  EDGEQ_CHECK(cv::imencode(".jpg", small, jpg, {cv::IMWRITE_JPEG_QUALITY, quality}),
              "cannot encode a thumbnail of ", path);
  t.jpeg_base64 = base64_encode(std::string(jpg.begin(), jpg.end()));
  return t;
}

}  // namespace edgeq
