// Shared CLI plumbing: build a model's input from an .npy or an image (the image input is found by
// vision/yolo_model.h; image folders as inputs come from quant/image_inputs.h).
#pragma once
#include <string>

#include "core/tensor.h"
#include "edgeq/images.h"
#include "ir/graph.h"
#include "quant/image_inputs.h"

namespace edgeq::cli {

// Input tensor from --input x.npy (checked against the model) or --image (letterboxed as
// Ultralytics does). Exactly one of the two must be non-empty.
Tensor make_input(const Graph& g, const std::string& npy_path, const std::string& image_path);

// ImageSource::from_path, its errors prefixed with the flag that named the path.
ImageSource image_source(const std::string& flag, const std::string& spec);

}  // namespace edgeq::cli
