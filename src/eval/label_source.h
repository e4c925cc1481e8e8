// Where the labels of each evaluated image live.
// - With --labels DIR: DIR/<image path below the --images folder, extension .txt>.
// - Without: Ultralytics' convention (the last "/images/" of the image path becomes "/labels/"),
//   used when at least one image maps into an existing labels folder.
// A missing label file means the image has no objects (as in Ultralytics datasets).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace edgeq {

struct LabelSource {
  bool enabled = false;
  std::string description;  // "labels/ beside images/ (Ultralytics layout)" or the labels dir
  std::vector<std::string> files;  // one per image, same order
  // Set (and `enabled` false) when a labels folder was named but holds a label file for none of
  // the images: scoring every image as empty would report mAP 0 for both models.
  std::string unmatched;
};

// `images_root` is the images folder, `images` the files found in it, `labels_dir` a labels
// folder ("" for none: labels/ beside images/ when present). Throws when `labels_dir` is given but
// is not a folder; labels that match no image disable scoring with `unmatched` saying why.
LabelSource resolve_label_source(const std::string& images_root,
                                 const std::vector<std::string>& images,
                                 const std::string& labels_dir);

}  // namespace edgeq
