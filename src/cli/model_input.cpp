#include "cli/model_input.h"

#include "core/error.h"
#include "core/npy.h"
#include "quant/calibration_images.h"
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

std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& flag) {
  const int h = yolo_input_height(g), w = yolo_input_width(g);
  std::vector<CalibrationImage> images;
  try {
    images = list_calibration_images(spec);
  } catch (const Error& e) {
    fail(flag, ": ", e.what());
  }
  EDGEQ_CHECK(!images.empty(), flag, ": no images in '", spec, "'");
  std::vector<Tensor> out;
  for (const CalibrationImage& im : sample_calibration_images(images, n, 0))
    out.push_back(preprocess_image(read_image(im.path), h, w, nullptr));
  return out;
}

}  // namespace edgeq::cli
