#include "edgeq/images.h"

#include <cstring>

#include "api/api_impl.h"
#include "core/error.h"
#include "core/sha256.h"
#include "vision/image_io.h"

namespace edgeq {

ImageSource ImageSource::from_path(const std::string& spec) {
  auto impl = std::make_shared<Impl>();
  impl->spec = spec;
  impl->entries = list_calibration_images(spec);
  return ImageSource(std::move(impl));
}

ImageSource ImageSource::from_files(const std::vector<std::string>& specs) {
  EDGEQ_CHECK(!specs.empty(), "an image source of files needs at least one path");
  auto impl = std::make_shared<Impl>();
  impl->spec = specs.size() == 1 ? specs[0] : "<" + std::to_string(specs.size()) + " paths>";
  for (const std::string& spec : specs)
    for (CalibrationImage& e : list_calibration_images(spec)) impl->entries.push_back(std::move(e));
  return ImageSource(std::move(impl));
}

ImageSource ImageSource::from_frames(std::vector<ImageFrame> frames) {
  EDGEQ_CHECK(!frames.empty(), "an image source of frames needs at least one frame");
  auto impl = std::make_shared<Impl>();
  impl->spec = "<frames>";
  for (size_t i = 0; i < frames.size(); ++i) {
    ImageFrame& f = frames[i];
    if (f.name.empty()) f.name = "frame " + std::to_string(i);
    EDGEQ_CHECK(f.width > 0 && f.height > 0, f.name, ": a frame needs a positive size, got ",
                f.width, "x", f.height);
    EDGEQ_CHECK(f.bgr.size() == static_cast<size_t>(f.width) * f.height * 3, f.name, ": ", f.width,
                "x", f.height, " BGR needs ", static_cast<size_t>(f.width) * f.height * 3,
                " bytes, got ", f.bgr.size());
    impl->entries.push_back({std::to_string(i), ""});
  }
  impl->frames = std::move(frames);
  return ImageSource(std::move(impl));
}

size_t ImageSource::size() const {
  return impl_->entries.size();
}
std::string ImageSource::name(size_t index) const {
  EDGEQ_CHECK(index < impl_->entries.size(), "image ", index, " of a source of ",
              impl_->entries.size());
  return impl_->name_of(impl_->entries[index]);
}
const std::string& ImageSource::spec() const {
  return impl_->spec;
}

std::vector<CalibrationImage> detail::ImageSourceImpl::sample(size_t n, uint64_t seed) const {
  return sample_calibration_images(entries, n, seed);
}

cv::Mat detail::ImageSourceImpl::read(const CalibrationImage& entry) const {
  if (frames.empty()) return read_image(entry.path);
  const ImageFrame& f = frames.at(std::stoul(entry.path));
  cv::Mat m(f.height, f.width, CV_8UC3);
  std::memcpy(m.data, f.bgr.data(), f.bgr.size());
  return m;
}

std::string detail::ImageSourceImpl::digest(const cv::Mat& bgr) {
  EDGEQ_CHECK(bgr.type() == CV_8UC3, "an image to digest must be 8-bit BGR");
  std::string bytes = std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) + ":";
  for (int r = 0; r < bgr.rows; ++r)
    bytes.append(reinterpret_cast<const char*>(bgr.ptr(r)), static_cast<size_t>(bgr.cols) * 3);
  return sha256_hex(bytes);
}

std::string detail::ImageSourceImpl::name_of(const CalibrationImage& entry) const {
  return frames.empty() ? entry.path : frames.at(std::stoul(entry.path)).name;
}

}  // namespace edgeq
