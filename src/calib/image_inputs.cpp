#include "calib/image_inputs.h"

#include "calib/calibration_images.h"
#include "core/error.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {

std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& what) {
  const int h = yolo_input_height(g), w = yolo_input_width(g);
  std::vector<CalibrationImage> images;
  try {
    images = list_calibration_images(spec);
  } catch (const Error& e) {
    fail(what, ": ", e.what());
  }
  EDGEQ_CHECK(!images.empty(), what, ": no images in '", spec, "'");
  std::vector<Tensor> out;
  for (const CalibrationImage& im : sample_calibration_images(images, n, 0))
    out.push_back(preprocess_image(read_image(im.path), h, w, nullptr));
  return out;
}

}  // namespace edgeq
