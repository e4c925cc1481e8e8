// Where images come from, for calibration, weight repair, the mixed-precision search and
// evaluation alike: a folder (recursive; sub-folders are sampled round robin), one image file, a
// text list of image paths, or frames held in memory. Each caller keeps its own selection policy
// (calibration samples with a seed and may take a shard; the search takes a seeded sample too).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace edgeq {

// An 8-bit colour image in memory: height x width x 3, BGR (OpenCV's order), rows packed.
struct ImageFrame {
  int width = 0, height = 0;
  std::vector<uint8_t> bgr;  // width * height * 3 bytes
  std::string name;          // what messages and reports call it ("" gives "frame <i>")
};

namespace detail {
struct ApiAccess;
struct ImageSourceImpl;
}  // namespace detail

class ImageSource {
 public:
  // A folder, one image, or a text list (relative paths are read from the list's folder; '#'
  // starts a comment). Throws naming the path when it does not exist or holds no image.
  static ImageSource from_path(const std::string& spec);
  // Several of the above, in order; throws for an empty list.
  static ImageSource from_files(const std::vector<std::string>& specs);
  // Frames in memory (copied once); throws for an empty list or a frame whose size is wrong.
  static ImageSource from_frames(std::vector<ImageFrame> frames);

  size_t size() const;
  std::string name(size_t index) const;  // the file path or the frame's name
  const std::string& spec() const;       // the path given, or "<frames>"

 private:
  friend struct detail::ApiAccess;  // the library's own code reaches the handle's state
  using Impl = detail::ImageSourceImpl;
  explicit ImageSource(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace edgeq
