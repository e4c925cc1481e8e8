// Shared CLI plumbing: build a model's input from an .npy or images (the image input is found by
// vision/yolo_model.h).
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq::cli {

// Input tensor from --input x.npy (checked against the model) or --image (letterboxed as
// Ultralytics does). Exactly one of the two must be non-empty.
Tensor make_input(const Graph& g, const std::string& npy_path, const std::string& image_path);
// Up to n images of a folder, a list file or one image (a seeded sample when there are more,
// quant/calibration_images.h), letterboxed for the model's image input. `flag` names the option
// in errors ("--images: no images in ...").
std::vector<Tensor> load_image_inputs(const Graph& g, const std::string& spec, size_t n,
                                      const std::string& flag);

}  // namespace edgeq::cli
