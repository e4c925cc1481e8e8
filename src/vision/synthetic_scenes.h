// Deterministic synthetic street-like scenes (gradients, texture, boxes, stick figures), so that
// calibration, run and compare have images to work on when the user brings none.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "edgeq/data.h"  // write_synthetic_scenes

namespace edgeq {

// Scene `index` of the series for `seed`: a BGR image of the given size, the same bytes whatever
// ran before in the process.
cv::Mat synthetic_scene(int index, uint32_t seed, int width = 640, int height = 480);

}  // namespace edgeq
