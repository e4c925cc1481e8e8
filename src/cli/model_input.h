// Shared CLI plumbing: load a model for running and build its input from an .npy or an image.
#pragma once
#include <string>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq::cli {

// The model's single image input: name and [N,C,H,W] shape. Throws if the model has another form.
const ValueInfo& image_input(const Graph& g);
// Input tensor from --input x.npy (checked against the model) or --image (letterboxed as
// Ultralytics does). Exactly one of the two must be non-empty.
Tensor make_input(const Graph& g, const std::string& npy_path, const std::string& image_path);

}  // namespace edgeq::cli
