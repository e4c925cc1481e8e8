// Image input: reading single images, listing image folders, and a frame source that walks an
// image path, an image folder or a video file one frame at a time.
#pragma once
#include <cstdint>
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "core/io_guard.h"

namespace edgeq {

// Reads a JPEG, PNG, BMP or WebP image as 8-bit BGR. Throws an Error naming the file when it is
// missing, unreadable or another format (checked by its first bytes, before any decoder runs).
cv::Mat read_image(const std::string& path);

// True for the extensions edgeq treats as images: jpg, jpeg, png, bmp, webp (any case).
bool is_image_path(const std::string& path);
// True for common video containers (mp4, avi, mov, mkv, webm, m4v) and for a camera.
bool is_video_path(const std::string& path);
// True for /dev/videoN when it is a character device: a camera, read frame by frame until
// Ctrl-C. The one device edgeq reads; every other input must be a regular file.
bool is_camera_device(const std::string& path);

// Image files under `dir` (recursive), sorted by path. Throws when `dir` is not a folder. Each is
// noted as an input (core/io_guard.h): no output of the command may replace one.
std::vector<std::string> list_images(const std::string& dir);


struct Frame {
  std::string name;  // image path, or "<video>#<index>" for video frames
  cv::Mat bgr;
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Fills the next frame; false at the end.
  virtual bool next(Frame* frame) = 0;
  // Frames passed over because they could not be decoded.
  virtual int skipped() const { return 0; }
  // A video's frame count as its header declares it (0: unknown, or not a video), and, once the
  // source has ended, how many of those frames it never gave (the file is cut short, or its last
  // frames are corrupt: the two read alike), 0 when it gave them all.
  virtual int64_t declared() const { return 0; }
  virtual int64_t missing() const { return 0; }
};

// Images from expand_image_paths(spec). With a single file an unreadable image throws; in a
// folder an unreadable image is reported by name (a warning, edgeq/warning.h) and skipped.
class ImageFrameSource : public FrameSource {
 public:
  explicit ImageFrameSource(const std::string& spec);
  bool next(Frame* frame) override;
  const std::vector<std::string>& paths() const { return paths_; }
  int skipped() const override { return skipped_; }

 private:
  std::vector<std::string> paths_;
  size_t pos_ = 0;
  bool from_folder_ = false;
  int skipped_ = 0;
};

// Frames of a video file through cv::VideoCapture. A frame that cannot be decoded before the end
// the container declares is reported (a warning), skipped and counted; frame names keep the index
// of the frame in the file. A video that ends before the frames its header declares is reported
// as a warning and counts them as missing.
class VideoFrameSource : public FrameSource {
 public:
  explicit VideoFrameSource(const std::string& path);
  ~VideoFrameSource() override;
  bool next(Frame* frame) override;
  int skipped() const override;
  int64_t declared() const override;
  int64_t missing() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A video source for video files, otherwise an image source.
std::unique_ptr<FrameSource> open_frames(const std::string& spec);

// A relative file name for outputs about `frame_name` from source `spec`: the image's path below
// the folder `spec`, the file name for a single image, "<video stem>_<6-digit index>.jpg" for a
// video frame. Never climbs out of the output folder (no "..", never absolute).
std::string frame_output_name(const std::string& spec, const std::string& frame_name);
// True when `relative` (a path below an output folder) can be frame_output_name(spec, f) for some
// frame f of `spec`: the file name of a single image, any image path for a folder,
// "<video stem>_<digits>.jpg" for a video. The files a --draw folder receives.
bool is_frame_output_name(const std::string& spec, const std::string& relative);

}  // namespace edgeq
