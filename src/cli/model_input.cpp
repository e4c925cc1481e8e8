#include "cli/model_input.h"

#include "core/error.h"
#include "core/npy.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {

Tensor make_input(const Graph& g, const std::string& npy_path, const std::string& image_path) {
  EDGEQ_CHECK(npy_path.empty() != image_path.empty(), "give exactly one of --input and --image");
  if (!npy_path.empty()) return load_npy(npy_path);
  cv::Mat bgr = read_image(image_path);
  return preprocess_image(bgr, yolo_input_height(g), yolo_input_width(g), nullptr);
}

ImageSource image_source(const std::string& flag, const std::string& spec) {
  try {
    return ImageSource::from_path(spec);
  } catch (const Error& e) {
    fail(flag, ": ", e.what());
  }
}

}  // namespace edgeq::cli
