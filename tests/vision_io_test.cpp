// Image listing / reading (including unreadable files), video frames, drawing, atomic image
// writes and the detections JSON.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "core/error.h"
#include "edgeq/warning.h"
#include "test_util.h"
#include "vision/detections_json.h"
#include "vision/draw.h"
#include "vision/image_io.h"
#include "vision/synthetic_scenes.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("edgeq_vision_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

void write_text(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

void write_png(const std::string& path, int w, int h, cv::Scalar color) {
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_TRUE(cv::imwrite(path, cv::Mat(h, w, CV_8UC3, color)));
}

using test::error_of;

TEST(VisionImageIo, ListsImagesRecursivelySortedByExtension) {
  TempDir d;
  write_png(d / "b.png", 4, 4, {1, 2, 3});
  write_png(d / "sub/a.jpg", 4, 4, {1, 2, 3});
  write_png(d / "C.BMP", 4, 4, {1, 2, 3});
  write_text(d / "notes.txt", "hello");
  write_text(d / "broken.png", "not a png");
  auto list = list_images(d.str());
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0], d / "C.BMP");
  EXPECT_EQ(list[1], d / "b.png");
  EXPECT_EQ(list[2], d / "broken.png");
  EXPECT_EQ(list[3], d / "sub/a.jpg");
  EXPECT_EQ(expand_image_paths(d / "b.png"), (std::vector<std::string>{d / "b.png"}));
  EXPECT_EQ(expand_image_paths(d.str()).size(), 4u);
}

// A link back up the tree used to be followed until the path grew too long (2 images became
// 82 frames); a second link to a folder already listed gave its images twice.
TEST(VisionImageIo, SymlinkLoopsAndRepeatedFoldersListEachImageOnce) {
  TempDir d;
  write_png(d / "a.png", 4, 4, {1, 2, 3});
  write_png(d / "sub/b.png", 4, 4, {1, 2, 3});
  std::filesystem::create_directory_symlink("..", d / "sub/up");      // a loop
  std::filesystem::create_directory_symlink(d / "sub", d / "again");  // the same folder twice
  std::filesystem::create_directory_symlink(".", d / "self");         // a loop at the top
  const auto list = list_images(d.str());
  ASSERT_EQ(list.size(), 2u) << list.back();
  EXPECT_EQ(list[0], d / "a.png");
  EXPECT_TRUE(list[1] == d / "again/b.png" || list[1] == d / "sub/b.png") << list[1];
}

TEST(VisionImageIo, FolderSkipsUnreadableImagesSingleFileThrows) {
  TempDir d;
  write_png(d / "a.png", 6, 5, {10, 20, 30});
  write_text(d / "b.png", "garbage");
  write_png(d / "c.png", 3, 2, {0, 0, 0});
  ImageFrameSource src(d.str());
  Frame f;
  std::vector<std::string> names;
  while (src.next(&f)) {
    names.push_back(fs::path(f.name).filename().string());
    EXPECT_FALSE(f.bgr.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a.png", "c.png"}));
  EXPECT_EQ(src.skipped(), 1);

  cv::Mat a = read_image(d / "a.png");
  EXPECT_EQ(a.cols, 6);
  EXPECT_EQ(a.rows, 5);
  EXPECT_EQ(a.at<cv::Vec3b>(0, 0), cv::Vec3b(10, 20, 30));

  EXPECT_NE(error_of([&] { read_image(d / "b.png"); }).find(d / "b.png"), std::string::npos);
  EXPECT_NE(error_of([&] {
              ImageFrameSource s(d / "b.png");
              s.next(&f);
            }).find("b.png"),
            std::string::npos);
  std::string e = error_of([&] { read_image(d / "missing.jpg"); });
  EXPECT_NE(e.find("not found"), std::string::npos) << e;
  EXPECT_NE(e.find("missing.jpg"), std::string::npos) << e;
  e = error_of([&] { expand_image_paths(d / "nothing_here"); });
  EXPECT_NE(e.find("nothing_here"), std::string::npos) << e;
}

// Skipped images are warnings through the process's handler (edgeq/warning.h), not lines the
// library writes to stderr itself: a front end gets the message, names unescaped; the default
// handler prints one escaped line.
TEST(VisionImageIo, SkippedImagesGoToTheWarningHandler) {
  TempDir d;
  write_png(d / "a.png", 6, 5, {10, 20, 30});
  const std::string bad = d / "b\x1b]0;title\x07.png";
  write_text(bad, "garbage");
  std::vector<std::string> got;
  EXPECT_FALSE(set_warning_handler([&](const std::string& m) { got.push_back(m); }));
  Frame f;
  {
    ImageFrameSource src(d.str());
    while (src.next(&f)) {
    }
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rfind("skipping image: ", 0), 0u) << got[0];
  EXPECT_NE(got[0].find("b\\x1b]0;title\\x07.png"), std::string::npos) << got[0];
  EXPECT_TRUE(set_warning_handler({}));  // the default again
  testing::internal::CaptureStderr();
  {
    ImageFrameSource src(d.str());
    while (src.next(&f)) {
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("edgeq: warning: skipping image: ", 0), 0u) << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(got.size(), 1u);  // the handler was replaced
}

TEST(VisionImageIo, EmptyFolderIsAnError) {
  TempDir d;
  write_text(d / "readme.txt", "x");
  std::string e = error_of([&] { expand_image_paths(d.str()); });
  EXPECT_NE(e.find("no images"), std::string::npos) << e;
}

TEST(VisionImageIo, VideoFrames) {
  TempDir d;
  const std::string path = d / "clip.avi";
  {
    cv::VideoWriter w(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, cv::Size(32, 24));
    if (!w.isOpened()) GTEST_SKIP() << "this OpenCV build cannot write MJPG .avi files";
    for (int i = 0; i < 3; ++i) w.write(cv::Mat(24, 32, CV_8UC3, cv::Scalar(i * 80, 0, 0)));
  }
  auto src = open_frames(path);
  Frame f;
  int n = 0;
  while (src->next(&f)) {
    EXPECT_EQ(f.bgr.cols, 32);
    EXPECT_EQ(f.name, path + "#" + std::to_string(n));
    ++n;
  }
  EXPECT_EQ(n, 3);
  EXPECT_NE(error_of([&] { VideoFrameSource s(d / "none.mp4"); }).find("none.mp4"),
            std::string::npos);
  // A FIFO named like a video is refused at once (it used to be handed to the decoder, which
  // waits for a writer); /dev/null is no camera; a camera name that is no device is no camera.
  const std::string fifo = d / "live.mp4";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { open_frames(fifo); }).find("not a regular file"), std::string::npos)
      << error_of([&] { open_frames(fifo); });
  EXPECT_FALSE(is_camera_device("/dev/null"));
  EXPECT_FALSE(is_camera_device("/dev/video"));
  EXPECT_FALSE(is_camera_device(d / "video0"));
  EXPECT_FALSE(is_video_path("/dev/videoX"));
}

TEST(VisionDraw, SkeletonIsUltralyticsCoco17) {
  const auto& s = coco17_skeleton();
  ASSERT_EQ(s.size(), 19u);
  // Ultralytics' 1-based list starts [16,14],[14,12] and ends [4,6],[5,7].
  EXPECT_EQ(s.front(), std::make_pair(15, 13));
  EXPECT_EQ(s[1], std::make_pair(13, 11));
  EXPECT_EQ(s.back(), std::make_pair(4, 6));
}

TEST(VisionDraw, DrawsBoxAndKeypointsAndWritesAtomically) {
  cv::Mat img(100, 100, CV_8UC3, cv::Scalar(0, 0, 0));
  Detection d;
  d.box[0] = 10;
  d.box[1] = 20;
  d.box[2] = 80;
  d.box[3] = 90;
  d.score = 0.5f;
  d.kpts.assign(17, Keypoint{50, 50, 0.9f});
  d.kpts[3] = {30, 60, 0.1f};  // below the drawing threshold
  draw_detections(img, {d});
  EXPECT_NE(img.at<cv::Vec3b>(55, 10), cv::Vec3b(0, 0, 0));  // left edge of the box
  EXPECT_NE(img.at<cv::Vec3b>(50, 50), cv::Vec3b(0, 0, 0));  // keypoint
  EXPECT_EQ(img.at<cv::Vec3b>(60, 30), cv::Vec3b(0, 0, 0));  // low-confidence keypoint
  EXPECT_EQ(img.at<cv::Vec3b>(95, 95), cv::Vec3b(0, 0, 0));  // outside everything

  TempDir t;
  write_image_atomic(t / "out.png", img);
  cv::Mat back = cv::imread(t / "out.png");
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(cv::norm(back, img, cv::NORM_INF), 0);
  EXPECT_NE(error_of([&] { write_image_atomic(t / "noext", img); }).find("noext"),
            std::string::npos);
}

TEST(VisionJson, LayoutAndRoundTrip) {
  Detection d;
  d.box[0] = 1.5f;
  d.box[1] = 2;
  d.box[2] = 3;
  d.box[3] = 4;
  d.score = 0.75f;
  d.cls = 2;
  d.kpts = {{5, 6, 0.5f}, {7, 8, 0.25f}};
  nlohmann::json j = detections_to_json("a.jpg", {d, Detection{}});
  EXPECT_EQ(j["image"], "a.jpg");
  ASSERT_EQ(j["detections"].size(), 2u);
  const auto& e = j["detections"][0];
  EXPECT_EQ(e["box"], nlohmann::json({1.5, 2.0, 3.0, 4.0}));
  EXPECT_EQ(e["score"], 0.75);
  EXPECT_EQ(e["class"], 2);
  EXPECT_EQ(e["keypoints"], nlohmann::json({{5.0, 6.0, 0.5}, {7.0, 8.0, 0.25}}));
  EXPECT_FALSE(j["detections"][1].contains("keypoints"));

  auto back = detections_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].box[0], 1.5f);
  EXPECT_EQ(back[0].cls, 2);
  ASSERT_EQ(back[0].kpts.size(), 2u);
  EXPECT_EQ(back[0].kpts[1].y, 8.0f);

  j["detections"][1].erase("score");
  std::string err = error_of([&] { detections_from_json(j, "r.json"); });
  EXPECT_NE(err.find("r.json: detection 1"), std::string::npos) << err;
}

}  // namespace
}  // namespace edgeq

namespace edgeq {
namespace {

TEST(VisionImageIo, FrameOutputNames) {
  TempDir d;
  write_png(d / "train/a.png", 2, 2, {0, 0, 0});
  EXPECT_EQ(frame_output_name(d.str(), d / "train/a.png"), "train/a.png");
  EXPECT_EQ(frame_output_name(d.str() + "/", d / "train/a.png"), "train/a.png");
  EXPECT_EQ(frame_output_name(d.str() + "/./", d / "train/a.png"), "train/a.png");
  EXPECT_EQ(frame_output_name(d / "train/a.png", d / "train/a.png"), "a.png");
  EXPECT_EQ(frame_output_name("/x/clip.mp4", "/x/clip.mp4#12"), "clip_000012.jpg");
  // A frame outside the folder (should not happen) still stays inside the output folder.
  EXPECT_EQ(frame_output_name(d / "train", d / "other/b.png"), "b.png");
}

}  // namespace
}  // namespace edgeq

namespace edgeq {
namespace {

// A scene depends on its index and seed only: OpenCV's global generator drawn from in between (as
// cv::randn elsewhere in the process does) changes nothing. (Its noise came from that generator,
// so a study's scenes differed with the tests that ran before it in the process.)
TEST(SyntheticScenes, SameBytesWhateverRanBefore) {
  const cv::Mat a = synthetic_scene(3, 5, 96, 64);
  cv::Mat other(8, 8, CV_32F);
  cv::randn(other, 0, 1);
  const cv::Mat b = synthetic_scene(3, 5, 96, 64);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0);
  EXPECT_GT(cv::norm(a, synthetic_scene(4, 5, 96, 64), cv::NORM_INF), 0);  // another scene
}

}  // namespace
}  // namespace edgeq
