#include "quant/image_inputs.h"

#include "core/error.h"
#include "quant/calibration_images.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {

const ValueInfo& image_input(const Graph& g) {
  EDGEQ_CHECK(g.inputs.size() == 1, "expected a model with one input, this one has ",
              g.inputs.size());
  const ValueInfo& in = g.inputs[0];
  EDGEQ_CHECK(in.shape.size() == 4 && in.shape[1] == 3, "input '", in.name,
              "' is not an image input [N,3,H,W]: ", shape_str(in.shape));
  return in;
}

std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& flag) {
  const ValueInfo& in = image_input(g);
  std::vector<CalibrationImage> images;
  try {
    images = list_calibration_images(spec);
  } catch (const Error& e) {
    fail(flag, ": ", e.what());
  }
  EDGEQ_CHECK(!images.empty(), flag, ": no images in '", spec, "'");
  std::vector<Tensor> out;
  for (const CalibrationImage& im : sample_calibration_images(images, n, 0))
    out.push_back(preprocess_image(read_image(im.path), static_cast<int>(in.shape[2]),
                                   static_cast<int>(in.shape[3]), nullptr));
  return out;
}

}  // namespace edgeq
