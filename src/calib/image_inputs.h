// Model inputs from image files: up to n images of a folder, a list file or one image (a seeded
// sample when there are more, calib/calibration_images.h), letterboxed for the model's image input
// (vision/yolo_model.h) as Ultralytics does.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// `what` names the images in errors ("calibration images: no images in ...").
std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& what);

}  // namespace edgeq
