// edgeq augment: variants (flip, scale, crop, mosaic) of a labelled image set, written with their
// labels in the Ultralytics layout: a dev split for honest quantization numbers (vision/augment.h).
#include "vision/augment.h"

#include <iostream>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "core/comma_list.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/io_guard.h"
#include "core/printable.h"
#include "eval/label_source.h"
#include "vision/image_io.h"

namespace edgeq::cli {
namespace {

struct AugmentArgs {
  std::string images, labels, out, kinds = "flip,scale,crop,mosaic";
  int n = 32;
  uint64_t seed = 0;
};

void run_augment(const AugmentArgs& a) {
  check_distinct_folders({"--images", a.images}, {"--out", a.out + "/images"});
  check_distinct_folders({"--labels", a.labels}, {"--out", a.out + "/labels"});
  check_distinct_files({image_input("--images", a.images),
                        {"--labels", a.labels, RoleFile::kFile, with_extension(".txt")}},
                       {{"--out", a.out, RoleFile::kFolder, [](const std::string& f) {
                           return f.rfind("images/", 0) == 0 || f.rfind("labels/", 0) == 0;
                         }}});
  AugmentOptions opt;
  opt.n = a.n;
  opt.seed = a.seed;
  opt.kinds.clear();
  const std::vector<std::string> kinds = comma_list(a.kinds);
  check_unique(kinds, "--kinds");
  for (const std::string& k : kinds) opt.kinds.push_back(parse_augment_kind(k));
  const std::vector<std::string> paths = expand_image_paths(a.images);
  const LabelSource labels = resolve_label_source(a.images, paths, a.labels);
  EDGEQ_CHECK(labels.enabled, "augment: no labels for '", a.images,
              "' (give --labels, or keep labels/ beside images/)");
  // SIGINT / SIGTERM: nothing written while the sources are read, then whole variants only.
  InterruptScope interrupt;
  std::vector<LabelledImage> sources;
  // One layout for the whole set (a mosaic joins labels of four files into one): the first file
  // with objects sets the keypoint count, any other count is refused naming both files.
  std::string layout_file;
  size_t keypoints = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    throw_if_interrupted();
    LabelledImage im;
    im.bgr = read_image(paths[i]);
    im.labels = read_yolo_labels(labels.files[i], im.bgr.cols, im.bgr.rows);
    if (!im.labels.empty() && layout_file.empty()) {
      layout_file = labels.files[i];
      keypoints = im.labels[0].kpts.size();
    }
    if (!im.labels.empty())
      EDGEQ_CHECK(im.labels[0].kpts.size() == keypoints, "augment: ", labels.files[i], " has ",
                  im.labels[0].kpts.size(), " keypoints per object but ", layout_file, " has ",
                  keypoints, ": every label file of a set needs one layout");
    sources.push_back(std::move(im));
  }
  auto written = write_augmented_split(sources, a.out, opt);
  std::cout << "wrote " << written.size() << " images from " << sources.size() << " to "
            << printable(a.out) << "/images, labels in " << a.out << "/labels\n";
}

}  // namespace

void register_augment(CLI::App& app) {
  auto a = std::make_shared<AugmentArgs>();
  auto* cmd = app.add_subcommand(
      "augment", "Variants (flip, scale, crop, mosaic) of labelled images: a held-out dev split");
  cmd->add_option("--images", a->images, "labelled images: folder or one image")->required();
  cmd->add_option("--labels", a->labels, "YOLO labels folder (default: labels/ beside images/)");
  cmd->add_option("--out", a->out, "folder to write OUT/images and OUT/labels into")->required();
  add_number(cmd, "--n", a->n, ranges::kFrames, "number of images")->capture_default_str();
  add_number(cmd, "--seed", a->seed, ranges::kSeed, "seed")->capture_default_str();
  cmd->add_option("--kinds", a->kinds, "variants to draw from (comma-separated)")
      ->capture_default_str();
  cmd->callback([a] { run_augment(*a); });
}

}  // namespace edgeq::cli
