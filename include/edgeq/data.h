// Image data made by edgeq: deterministic synthetic street scenes and a test video panning over
// them (demos, smoke runs, the frame pipeline's benchmark), and held-out variants of a small
// labelled image set (a dev split the quantizer never saw: calibrate on one set of photos, judge
// on variants of another).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgeq {

// Writes n synthetic scenes (gradients, texture, boxes, stick figures; 640 x 480) as
// DIR/scene_000.jpg ...; the same bytes for the same seed. Returns the paths.
std::vector<std::string> write_synthetic_scenes(const std::string& dir, int n, uint32_t seed);

struct SceneVideoOptions {
  int frames = 100;
  int width = 640, height = 480;
  double fps = 30;
  uint32_t seed = 0;   // synthetic scenes
  std::string images;  // a folder of photos to use instead of synthetic scenes ("" for none)
  int hold = 30;       // frames per picture (a 2-pixel pan step each)
};

// Writes an MJPG AVI (atomically) whose frames pan slowly over a series of pictures, synthetic
// scenes or the photos of a folder: people to find, no two neighbouring frames the same.
void write_scene_video(const std::string& path, const SceneVideoOptions& opt);

// Each variant is, chosen at random per image (seeded, deterministic):
//   flip    mirrored left-right (left / right keypoints of COCO-17 swapped);
//   scale   zoomed by 0.6..1.4 about a random point on a 114-gray canvas of the same size;
//   crop    a random window of 55..90 % of the width and height;
//   mosaic  four images in the quadrants of a 640 x 640 canvas split at a random point.
// Labels follow the pixels: boxes clipped to the new image are dropped when less than 40 % of
// their area remains; keypoints that leave the image become unlabelled (0 0 0).
enum class AugmentKind { kFlip, kScale, kCrop, kMosaic };

// "flip" | "scale" | "crop" | "mosaic"; throws listing the choices.
AugmentKind parse_augment_kind(const std::string& s);
const char* augment_kind_name(AugmentKind k);

struct AugmentOptions {
  int n = 32;  // variants written
  uint64_t seed = 0;
  std::vector<AugmentKind> kinds = {AugmentKind::kFlip, AugmentKind::kScale, AugmentKind::kCrop,
                                    AugmentKind::kMosaic};
};

// The YOLO label file of each of `images` (found under the folder `images_root`):
// LABELS_DIR/<path below images_root>.txt, or with labels_dir "" the Ultralytics layout (labels/
// beside images/). Empty when no image has a label file there. Throws when labels_dir is given
// but is not a folder. A label file that does not exist means an image without objects.
std::vector<std::string> find_label_files(const std::string& images_root,
                                          const std::vector<std::string>& images,
                                          const std::string& labels_dir);

struct AugmentResult {
  size_t sources = 0;                // labelled images read
  std::vector<std::string> written;  // the variants' image paths
};

// Reads `images` with their YOLO labels (`label_files`, one per image), checks that every label
// file of the set has one layout (keypoints per object; a mosaic joins four files' labels), and
// writes opt.n variants as OUT/images/aug_NNN.jpg and OUT/labels/aug_NNN.txt (Ultralytics layout),
// each file atomically. Refuses a second layout naming both files. A front end's interrupt stops
// it between two images or two variants (edgeq::Cancelled saying how many were written).
AugmentResult write_augmented_images(const std::vector<std::string>& images,
                                     const std::vector<std::string>& label_files,
                                     const std::string& out_dir, const AugmentOptions& opt);

}  // namespace edgeq
