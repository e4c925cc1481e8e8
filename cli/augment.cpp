// edgeq augment: variants (flip, scale, crop, mosaic) of a labelled image set, written with their
// labels in the Ultralytics layout: a dev split for honest quantization numbers (edgeq/data.h).
#include <iostream>

#include "commands.h"
#include "edgeq/data.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/text.h"
#include "number_options.h"

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
  const std::vector<std::string> labels = find_label_files(a.images, paths, a.labels);
  EDGEQ_CHECK(!labels.empty(), "augment: no labels for '", a.images,
              "' (give --labels, or keep labels/ beside images/)");
  // SIGINT / SIGTERM: nothing written while the sources are read, then whole variants only.
  InterruptScope interrupt;
  const AugmentResult r = write_augmented_images(paths, labels, a.out, opt);
  std::cout << "wrote " << r.written.size() << " images from " << r.sources << " to "
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
