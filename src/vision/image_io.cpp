#include "vision/image_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#include <set>

#include "core/error.h"
#include "core/io_guard.h"
#include "core/warning.h"

namespace edgeq {
namespace fs = std::filesystem;

static std::string lower_ext(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

bool is_image_path(const std::string& path) {
  const std::string e = lower_ext(path);
  return e == ".jpg" || e == ".jpeg" || e == ".png" || e == ".bmp" || e == ".webp";
}

bool is_camera_device(const std::string& path) {
  const std::string prefix = "/dev/video";
  if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size()) return false;
  for (size_t i = prefix.size(); i < path.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return false;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

bool is_video_path(const std::string& path) {
  const std::string e = lower_ext(path);
  return e == ".mp4" || e == ".avi" || e == ".mov" || e == ".mkv" || e == ".webm" || e == ".m4v" ||
         is_camera_device(path);
}

// True when `head` (a file's first bytes) starts like a JPEG, PNG, BMP or WebP file.
static bool has_image_signature(const std::string& head) {
  auto starts = [&](const std::string& magic, size_t at = 0) {
    return head.size() >= at + magic.size() && head.compare(at, magic.size(), magic) == 0;
  };
  return starts("\xFF\xD8\xFF") || starts("\x89PNG\r\n\x1A\n") || starts("BM") ||
         (starts("RIFF") && starts("WEBP", 8));
}

cv::Mat read_image(const std::string& path) {
  std::error_code ec;
  EDGEQ_CHECK(fs::exists(path, ec), "image not found: ", path);
  EDGEQ_CHECK(!fs::is_directory(path, ec), "expected an image file, got a folder: ", path);
  require_regular_file(path, kMaxImageBytes);
  note_input(path);
  // OpenCV picks a decoder by content, not by name, and some of its decoders abort the process
  // on bad input (its DICOM reader, GDCM, asserts: a fuzz finding). Only the formats edgeq reads
  // reach it: their decoders come first in OpenCV's list.
  std::string head(12, '\0');
  {
    std::ifstream f(path, std::ios::binary);
    EDGEQ_CHECK(f, "cannot open image ", path);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(f.gcount()));
  }
  EDGEQ_CHECK(has_image_signature(head),
              "cannot decode image (not a JPEG, PNG, BMP or WebP file): ", path);
  cv::Mat img;
  try {
    img = cv::imread(path, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {  // some corrupt files make a decoder throw
    fail("cannot decode image ", path, ": ", e.what());
  }
  EDGEQ_CHECK(!img.empty(), "cannot decode image (unreadable or not an image): ", path);
  return img;
}

std::vector<std::string> list_images(const std::string& dir) {
  std::error_code ec;
  EDGEQ_CHECK(fs::is_directory(dir, ec), "not a folder: ", dir);
  std::vector<std::string> out;
  // Symbolic links to folders are followed, each folder once: a link back up the tree (a loop)
  // or to a folder already listed is not entered again.
  std::set<std::pair<dev_t, ino_t>> folders;
  auto first_visit = [&](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) != 0 || folders.insert({st.st_dev, st.st_ino}).second;
  };
  first_visit(dir);
  for (fs::recursive_directory_iterator
           it(dir, fs::directory_options::follow_directory_symlink, ec),
       end;
       it != end; it.increment(ec)) {
    if (ec) fail("cannot list folder ", dir, ": ", ec.message());
    if (it->is_directory(ec)) {
      if (!first_visit(it->path())) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && is_image_path(it->path().string()))
      out.push_back(it->path().string());
  }
  if (ec) fail("cannot list folder ", dir, ": ", ec.message());
  std::sort(out.begin(), out.end());
  note_inputs(out);
  return out;
}

std::vector<std::string> expand_image_paths(const std::string& spec) {
  std::error_code ec;
  EDGEQ_CHECK(fs::exists(spec, ec), "no such image file or folder: ", spec);
  if (!fs::is_directory(spec, ec)) return {spec};
  std::vector<std::string> paths = list_images(spec);
  EDGEQ_CHECK(!paths.empty(), "no images (jpg, jpeg, png, bmp, webp) in folder ", spec);
  return paths;
}

RoleFile image_input(const std::string& role, const std::string& spec) {
  return {role, spec, RoleFile::kFile, [](const std::string& f) { return is_image_path(f); }};
}

ImageFrameSource::ImageFrameSource(const std::string& spec) {
  std::error_code ec;
  from_folder_ = fs::is_directory(spec, ec);
  paths_ = expand_image_paths(spec);
}

bool ImageFrameSource::next(Frame* frame) {
  while (pos_ < paths_.size()) {
    const std::string& path = paths_[pos_++];
    if (!from_folder_) {
      frame->name = path;
      frame->bgr = read_image(path);
      return true;
    }
    try {
      frame->bgr = read_image(path);
      frame->name = path;
      return true;
    } catch (const Error& e) {
      warn_that("skipping image: ", e.what());
      ++skipped_;
    }
  }
  return false;
}

struct VideoFrameSource::Impl {
  std::string path;
  cv::VideoCapture cap;
  long index = 0;     // of the next frame in the file
  long declared = 0;  // frames the container declares; 0 when unknown
  int skipped = 0;
  long missing = 0;  // declared frames after the last one read, once the video has ended
};

VideoFrameSource::VideoFrameSource(const std::string& path) : impl_(std::make_unique<Impl>()) {
  std::error_code ec;
  EDGEQ_CHECK(fs::exists(path, ec), "video not found: ", path);
  EDGEQ_CHECK(!fs::is_directory(path, ec), "expected a video file, got a folder: ", path);
  // A video file, or a camera (/dev/videoN); never another device, a FIFO or a /proc file.
  const bool camera = is_camera_device(path);
  if (!camera) require_regular_file(path, kMaxVideoBytes);
  impl_->path = path;
  // OpenCV's FFmpeg backend prints decoder errors (a corrupt frame: "[mjpeg @ 0x...] No JPEG
  // data found") on top of our one line per bad frame; quiet it unless the user chose a level.
  // Read when the backend first loads, i.e. at the first open.
  setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);  // AV_LOG_QUIET
  bool opened = false;
  // Each backend OpenCV tries on a file it cannot read logs warnings; the one line below says it.
  // Silent while opening, the previous level afterwards. FFmpeg alone where OpenCV has it:
  // GStreamer, tried after it, prints GStreamer-CRITICAL lines on garbage from its own threads,
  // which no log level silences.
  const auto level = cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  const int backend =
      !camera && cv::videoio_registry::hasBackend(cv::CAP_FFMPEG) ? cv::CAP_FFMPEG : cv::CAP_ANY;
  try {
    opened = impl_->cap.open(path, backend);
  } catch (const cv::Exception&) {  // some backends throw on garbage
  }
  cv::utils::logging::setLogLevel(level);
  EDGEQ_CHECK(opened, "cannot open video (unsupported or corrupt): ", path);
  impl_->declared = std::max(0L, static_cast<long>(impl_->cap.get(cv::CAP_PROP_FRAME_COUNT)));
}

VideoFrameSource::~VideoFrameSource() = default;

// A failed read is a corrupt frame when a good one follows within kGiveUp reads, else the end of
// the video. The header's frame count is not trusted either way: a header claiming 2^31 frames
// does not keep the reader retrying, and a video without a count still skips a corrupt frame.
bool VideoFrameSource::next(Frame* frame) {
  constexpr int kGiveUp = 25;  // failed reads in a row that end the video
  constexpr int kNamed = 10;   // skipped frames named, then only counted
  Impl& v = *impl_;
  for (int failed = 0; failed < kGiveUp; ++failed) {
    cv::Mat img;
    if (v.cap.grab() && v.cap.retrieve(img) && !img.empty()) {
      for (long i = v.index - failed; i < v.index; ++i, ++v.skipped) {
        if (v.skipped < kNamed)
          warn_that("skipping undecodable frame ", i, " of video ", v.path);
        else if (v.skipped == kNamed)
          warn_that("more undecodable frames in ", v.path, "; counting them");
      }
      frame->bgr = img;
      frame->name = v.path + "#" + std::to_string(v.index++);
      return true;
    }
    ++v.index;
  }
  v.index -= kGiveUp;
  if (v.declared > v.index && v.missing == 0) {
    v.missing = v.declared - v.index;
    warn_that("video ", v.path, " ended at frame ", v.index, " (nothing decodable in the next ",
              kGiveUp, " reads) although its header declares ", v.declared, " frames: ", v.missing,
              " missing (the file is cut short, or its last frames are corrupt)");
  }
  return false;
}

int VideoFrameSource::skipped() const {
  return impl_->skipped;
}
int64_t VideoFrameSource::declared() const {
  return impl_->declared;
}
int64_t VideoFrameSource::missing() const {
  return impl_->missing;
}

std::unique_ptr<FrameSource> open_frames(const std::string& spec) {
  std::error_code ec;
  if (is_video_path(spec) && !fs::is_directory(spec, ec))
    return std::make_unique<VideoFrameSource>(spec);
  return std::make_unique<ImageFrameSource>(spec);
}

std::string frame_output_name(const std::string& spec, const std::string& frame_name) {
  std::error_code ec;
  const size_t hash = frame_name.rfind('#');
  if (is_video_path(spec) && hash != std::string::npos) {
    std::string idx = frame_name.substr(hash + 1);
    if (idx.size() < 6) idx.insert(0, 6 - idx.size(), '0');
    return fs::path(spec).stem().string() + "_" + idx + ".jpg";
  }
  const fs::path file = fs::path(frame_name).filename();
  if (!fs::is_directory(spec, ec)) return file.string();
  fs::path root = fs::path(spec).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "dir/" -> "dir"
  const fs::path rel = fs::path(frame_name).lexically_normal().lexically_relative(root);
  if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") return file.string();
  return rel.string();
}

bool is_frame_output_name(const std::string& spec, const std::string& relative) {
  std::error_code ec;
  if (is_video_path(spec) && !fs::is_directory(spec, ec)) {
    const std::string stem = fs::path(spec).stem().string() + "_";
    const std::string name = relative;
    if (name.size() <= stem.size() + 4 || name.compare(0, stem.size(), stem) != 0 ||
        lower_ext(name) != ".jpg")
      return false;
    const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 4);
    return digits.find_first_not_of("0123456789") == std::string::npos;
  }
  if (fs::is_directory(spec, ec)) return is_image_path(relative);
  return relative == fs::path(spec).filename().string();
}

}  // namespace edgeq
