// The data tools through include/edgeq only (edgeq/data.h): synthetic scenes and the scene video,
// the label files of an image set, and augmented variants with the label layout check.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "edgeq/data.h"
#include "edgeq/error.h"
#include "test_util.h"

namespace edgeq {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> images_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DataApi, SyntheticScenesAreDeterministic) {
  const std::string d = test::temp_dir("data_api_scenes");
  const auto a = write_synthetic_scenes(d + "/a", 3, 5);
  const auto b = write_synthetic_scenes(d + "/b", 3, 5);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(fs::path(a[2]).filename(), "scene_002.jpg");
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(bytes_of(a[i]), bytes_of(b[i])) << i;
  EXPECT_NE(bytes_of(a[0]), bytes_of(write_synthetic_scenes(d + "/c", 1, 6)[0]));
  EXPECT_THROW(write_synthetic_scenes(d + "/d", 0, 5), Error);
}

TEST(DataApi, SceneVideoIsAnAvi) {
  const std::string d = test::temp_dir("data_api_video");
  SceneVideoOptions o;
  o.frames = 6;
  o.width = 160;
  o.height = 120;
  write_scene_video(d + "/v.avi", o);
  const std::string avi = bytes_of(d + "/v.avi");
  ASSERT_GT(avi.size(), 12u);
  EXPECT_EQ(avi.substr(0, 4), "RIFF");
  EXPECT_EQ(avi.substr(8, 3), "AVI");
}

TEST(DataApi, LabelFilesBesideImagesOrInAFolder) {
  const std::string root = test::coco8_pose_dir() + "/images/val";
  const auto images = images_in(root);
  const auto labels = find_label_files(root, images, "");
  ASSERT_EQ(labels.size(), images.size());
  EXPECT_EQ(fs::path(labels[0]).filename(), fs::path(images[0]).stem().string() + ".txt");
  EXPECT_EQ(fs::path(labels[0]).parent_path().filename(), "val");
  // A labels folder that holds none of them: no labels; a file for a folder: refused.
  const std::string empty = test::temp_dir("data_api_nolabels");
  EXPECT_TRUE(find_label_files(root, images, empty).empty());
  EXPECT_THROW(find_label_files(root, images, images[0]), Error);
}

TEST(DataApi, AugmentedVariantsWithTheirLabels) {
  const std::string root = test::coco8_pose_dir() + "/images/train";
  const auto images = images_in(root);
  const auto labels = find_label_files(root, images, "");
  const std::string d = test::temp_dir("data_api_augment");
  AugmentOptions o;
  o.n = 3;
  o.seed = 11;
  o.kinds = {parse_augment_kind("flip"), parse_augment_kind("mosaic")};
  const AugmentResult a = write_augmented_images(images, labels, d + "/a", o);
  const AugmentResult b = write_augmented_images(images, labels, d + "/b", o);
  EXPECT_EQ(a.sources, images.size());
  ASSERT_EQ(a.written.size(), 3u);
  for (size_t i = 0; i < a.written.size(); ++i) {
    EXPECT_EQ(bytes_of(a.written[i]), bytes_of(b.written[i])) << i;
    const std::string stem = fs::path(a.written[i]).stem().string();
    EXPECT_EQ(bytes_of(d + "/a/labels/" + stem + ".txt"),
              bytes_of(d + "/b/labels/" + stem + ".txt"));
  }
  EXPECT_STREQ(augment_kind_name(AugmentKind::kMosaic), "mosaic");
  EXPECT_THROW(parse_augment_kind("blur"), Error);
  EXPECT_THROW(write_augmented_images(images, {}, d + "/c", o), Error);
}

TEST(DataApi, AugmentRefusesTwoLabelLayouts) {
  const std::string root = test::coco8_pose_dir() + "/images/train";
  const auto images = images_in(root);
  std::vector<std::string> labels = find_label_files(root, images, "");
  const std::string d = test::temp_dir("data_api_layouts");
  std::ofstream(d + "/boxes.txt") << "0 0.5 0.5 0.2 0.4\n";  // a box, no keypoints
  labels[1] = d + "/boxes.txt";
  try {
    write_augmented_images(images, labels, d + "/out", {});
    FAIL() << "two layouts accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("every label file of a set needs one layout"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("boxes.txt"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(d + "/out/images"));
}

}  // namespace
}  // namespace edgeq
