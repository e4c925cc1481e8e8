// Held-out variants of a small labelled image set (edgeq/data.h: the kinds and their options),
// image by image in memory.
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <random>
#include <string>
#include <vector>

#include "edgeq/data.h"
#include "vision/labels.h"

namespace edgeq {

struct LabelledImage {
  cv::Mat bgr;
  std::vector<Label> labels;  // in this image's pixels
};

// One variant of `sources[pick]` (mosaic: four picks), drawn with `rng`.
LabelledImage augment_image(const std::vector<LabelledImage>& sources, AugmentKind kind,
                            std::mt19937_64& rng);

// Writes OUT/images/aug_NNN.jpg and OUT/labels/aug_NNN.txt (Ultralytics layout, so `compare`
// finds the labels beside the images), each file atomically; returns the image paths. A front
// end's SIGINT / SIGTERM (core/interrupt.h) stops it between two variants (edgeq::Cancelled
// saying how many were written).
std::vector<std::string> write_augmented_split(const std::vector<LabelledImage>& sources,
                                               const std::string& out_dir,
                                               const AugmentOptions& opt);

}  // namespace edgeq
