#include "cli/model_input.h"

#include "core/error.h"
#include "core/npy.h"
#include "quant/calibration_images.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq::cli {

const ValueInfo& image_input(const Graph& g) {
  EDGEQ_CHECK(g.inputs.size() == 1, "expected a model with one input, this one has ",
              g.inputs.size());
  const ValueInfo& in = g.inputs[0];
  EDGEQ_CHECK(in.shape.size() == 4 && in.shape[1] == 3, "input '", in.name,
              "' is not an image input [N,3,H,W]: ", shape_str(in.shape));
  return in;
}

Tensor make_input(const Graph& g, const std::string& npy_path, const std::string& image_path) {
  EDGEQ_CHECK(npy_path.empty() != image_path.empty(), "give exactly one of --input and --image");
  if (!npy_path.empty()) return load_npy(npy_path);
  const ValueInfo& in = image_input(g);
  cv::Mat bgr = read_image(image_path);
  return preprocess_image(bgr, static_cast<int>(in.shape[2]), static_cast<int>(in.shape[3]),
                          nullptr);
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

}  // namespace edgeq::cli
