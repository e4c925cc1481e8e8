#include <cstdio>
#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/io_guard.h"
#include "core/option_range.h"
#include "edgeq/data.h"
#include "vision/image_io.h"
#include "vision/synthetic_scenes.h"

namespace edgeq {
namespace {

constexpr int kPanStep = 2;  // pixels per frame
constexpr int kSyntheticScenes = 8;

// Each picture scaled to cover the frame plus the pan's travel.
std::vector<cv::Mat> pictures(const SceneVideoOptions& o) {
  std::vector<cv::Mat> raw;
  if (o.images.empty()) {
    for (int i = 0; i < kSyntheticScenes; ++i)
      raw.push_back(synthetic_scene(i, o.seed, o.width, o.height));
  } else {
    for (const std::string& p : list_images(o.images)) raw.push_back(read_image(p));
    EDGEQ_CHECK(!raw.empty(), "no images in ", o.images);
  }
  const int travel = kPanStep * o.hold;
  std::vector<cv::Mat> out;
  for (const cv::Mat& m : raw) {
    const double r = std::max(double(o.width + travel) / m.cols, double(o.height) / m.rows);
    cv::Mat scaled;
    cv::resize(m, scaled,
               cv::Size(std::max(o.width + travel, int(m.cols * r + 0.5)),
                        std::max(o.height, int(m.rows * r + 0.5))),
               0, 0, cv::INTER_LINEAR);
    out.push_back(scaled);
  }
  return out;
}

}  // namespace

void write_scene_video(const std::string& path, const SceneVideoOptions& o) {
  check_option("frames", o.frames, ranges::kFrames);
  check_option("width", o.width, ranges::kImageSide);
  check_option("height", o.height, ranges::kImageSide);
  check_option("fps", o.fps, ranges::kFps);
  check_option("hold", o.hold, ranges::kFrames);
  // Another name would be written in another format (OpenCV writes "x.jpg" as one JPEG).
  EDGEQ_CHECK(is_video_path(path) && !is_camera_device(path), "cannot write video ", path,
              ": name an .avi file (MJPG in AVI)");
  // The video never replaces one of the photos it is made of (checked before any is read).
  check_distinct_files({image_input("images", o.images)}, {{"video", path}});
  const std::vector<cv::Mat> pics = pictures(o);
  // The writer picks the container by extension: the temp file keeps it.
  AtomicFile file(path);
  const std::string& tmp = file.temp_path(std::filesystem::path(path).extension().string());
  {
    cv::VideoWriter w(tmp, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), o.fps,
                      cv::Size(o.width, o.height));
    EDGEQ_CHECK(w.isOpened(), "cannot write video ", path, " (MJPG; use an .avi name)");
    for (int k = 0; k < o.frames; ++k) {
      const cv::Mat& pic = pics[static_cast<size_t>(k / o.hold) % pics.size()];
      const int x = std::min(pic.cols - o.width, kPanStep * (k % o.hold));
      const int y = (pic.rows - o.height) / 2;
      w.write(pic(cv::Rect(x, y, o.width, o.height)));
    }
  }
  file.commit();
}

}  // namespace edgeq
