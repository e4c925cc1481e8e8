// Held-out variants of a small labelled image set, for a dev split the quantizer never saw
// (`edgeq augment`): calibrate on one set of photos and judge on variants of another. Each output
// image is, chosen at random per image (seeded, deterministic):
//   flip    mirrored left-right (left / right keypoints of COCO-17 swapped);
//   scale   zoomed by 0.6..1.4 about a random point on a 114-gray canvas of the same size;
//   crop    a random window of 55..90 % of the width and height;
//   mosaic  four images in the quadrants of a 640 x 640 canvas split at a random point, each
//           fitted into its quadrant.
// Labels follow the pixels: boxes are clipped to the new image and dropped when less than 40 %
// of their area remains; keypoints that leave the image become unlabelled (0 0 0).
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <random>
#include <string>
#include <vector>

#include "vision/labels.h"

namespace edgeq {

enum class AugmentKind { kFlip, kScale, kCrop, kMosaic };

// "flip" | "scale" | "crop" | "mosaic"; throws listing the choices.
AugmentKind parse_augment_kind(const std::string& s);
const char* augment_kind_name(AugmentKind k);

struct LabelledImage {
  cv::Mat bgr;
  std::vector<Label> labels;  // in this image's pixels
};

// One variant of `sources[pick]` (mosaic: four picks), drawn with `rng`.
LabelledImage augment_image(const std::vector<LabelledImage>& sources, AugmentKind kind,
                            std::mt19937_64& rng);

struct AugmentOptions {
  int n = 32;
  uint64_t seed = 0;
  std::vector<AugmentKind> kinds = {AugmentKind::kFlip, AugmentKind::kScale, AugmentKind::kCrop,
                                    AugmentKind::kMosaic};
};

// Writes OUT/images/aug_NNN.jpg and OUT/labels/aug_NNN.txt (Ultralytics layout, so `compare`
// finds the labels beside the images), each file atomically; returns the image paths. A front
// end's SIGINT / SIGTERM (core/interrupt.h) stops it between two variants (edgeq::Cancelled
// saying how many were written).
std::vector<std::string> write_augmented_split(const std::vector<LabelledImage>& sources,
                                               const std::string& out_dir,
                                               const AugmentOptions& opt);

}  // namespace edgeq
