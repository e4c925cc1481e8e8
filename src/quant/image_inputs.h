// Model inputs from image files: a model's single image input, and up to n images of a folder, a
// list file or one image (a seeded sample when there are more, quant/calibration_images.h),
// letterboxed for it as Ultralytics does.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// The model's single image input: name and [N,C,H,W] shape. Throws if the model has another form.
const ValueInfo& image_input(const Graph& g);
// `flag` names the option in errors ("--images: no images in ...").
std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& flag);

}  // namespace edgeq
