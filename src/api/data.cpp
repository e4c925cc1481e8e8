// The data tools' calls (edgeq/data.h) that join the image readers with the label layout; the
// scenes, the video and the variants themselves live in vision/.
#include "edgeq/data.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "eval/label_source.h"
#include "vision/augment.h"
#include "vision/image_io.h"

namespace edgeq {

std::vector<std::string> find_label_files(const std::string& images_root,
                                          const std::vector<std::string>& images,
                                          const std::string& labels_dir) {
  LabelSource labels = resolve_label_source(images_root, images, labels_dir);
  if (!labels.enabled) return {};
  return std::move(labels.files);
}

AugmentResult write_augmented_images(const std::vector<std::string>& images,
                                     const std::vector<std::string>& label_files,
                                     const std::string& out_dir, const AugmentOptions& opt) {
  EDGEQ_CHECK(label_files.size() == images.size(), "augment: ", label_files.size(),
              " label files for ", images.size(), " images");
  std::vector<LabelledImage> sources;
  // One layout for the whole set (a mosaic joins labels of four files into one): the first file
  // with objects sets the keypoint count, any other count is refused naming both files.
  std::string layout_file;
  size_t keypoints = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    throw_if_interrupted();
    LabelledImage im;
    im.bgr = read_image(images[i]);
    im.labels = read_yolo_labels(label_files[i], im.bgr.cols, im.bgr.rows);
    if (!im.labels.empty() && layout_file.empty()) {
      layout_file = label_files[i];
      keypoints = im.labels[0].kpts.size();
    }
    if (!im.labels.empty())
      EDGEQ_CHECK(im.labels[0].kpts.size() == keypoints, "augment: ", label_files[i], " has ",
                  im.labels[0].kpts.size(), " keypoints per object but ", layout_file, " has ",
                  keypoints, ": every label file of a set needs one layout");
    sources.push_back(std::move(im));
  }
  AugmentResult r;
  r.sources = sources.size();
  r.written = write_augmented_split(sources, out_dir, opt);
  return r;
}

}  // namespace edgeq
