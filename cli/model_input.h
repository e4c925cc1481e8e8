// Shared CLI plumbing: an image folder, file or list given to a flag, as an ImageSource.
#pragma once
#include <string>

#include "edgeq/images.h"

namespace edgeq::cli {

// ImageSource::from_path, its errors prefixed with the flag that named the path.
ImageSource image_source(const std::string& flag, const std::string& spec);

}  // namespace edgeq::cli
