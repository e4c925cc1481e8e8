#include "eval/label_source.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "vision/labels.h"

namespace edgeq {
namespace fs = std::filesystem;

LabelSource resolve_label_source(const std::string& images_root,
                                 const std::vector<std::string>& images,
                                 const std::string& labels_dir) {
  LabelSource src;
  std::error_code ec;
  if (!labels_dir.empty()) {
    EDGEQ_CHECK(fs::is_directory(labels_dir, ec),
                "labels folder not found (or not a folder): ", labels_dir);
    src.enabled = true;
    src.description = labels_dir;
    for (const auto& img : images) {
      fs::path rel = fs::path(img).lexically_relative(images_root);
      if (rel.empty() || *rel.begin() == "..") rel = fs::path(img).filename();
      src.files.push_back((fs::path(labels_dir) / rel.replace_extension(".txt")).string());
    }
    const bool any = std::any_of(src.files.begin(), src.files.end(),
                                 [&](const std::string& f) { return fs::is_regular_file(f, ec); });
    if (!any && !src.files.empty()) {
      src.unmatched = "no label file in " + labels_dir + " matches any of the " +
                      std::to_string(images.size()) + " images (looked for " + src.files.front() +
                      ", ...): no mAP";
      src.enabled = false;
      src.files.clear();
    }
    return src;
  }
  for (const auto& img : images) {
    const std::string abs = fs::absolute(img, ec).lexically_normal().string();
    const std::string lbl = label_path_for_image(abs);
    src.files.push_back(lbl);
    if (lbl.find("/labels/") != std::string::npos && abs.find("/images/") != std::string::npos &&
        fs::is_directory(fs::path(lbl).parent_path(), ec))
      src.enabled = true;
  }
  if (src.enabled)
    src.description = "labels/ beside images/ (Ultralytics layout)";
  else
    src.files.clear();
  return src;
}

}  // namespace edgeq
