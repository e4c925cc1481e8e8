#include "model_input.h"

#include "edgeq/error.h"

namespace edgeq::cli {

ImageSource image_source(const std::string& flag, const std::string& spec) {
  try {
    return ImageSource::from_path(spec);
  } catch (const Error& e) {
    fail(flag, ": ", e.what());
  }
}

}  // namespace edgeq::cli
