// The real model and photos ship in the repository (models/, data/coco8-pose/): the model's bytes
// are the ones models/README.md documents (its sha256, recorded there when it was rebuilt), and
// the dataset holds 4 train and 4 val photos, each with its label file, plus the license notes.
// A changed or missing file fails here instead of moving every measured number silently.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file_io.h"
#include "core/sha256.h"
#include "test_util.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

TEST(RealData, ModelIsTheDocumentedFile) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string readme = read_file(test::source_dir() + "/models/README.md");
  const std::string sha = sha256_hex(read_file(test::real_model_path()));
  EXPECT_EQ(sha.size(), 64u);
  EXPECT_NE(readme.find(sha), std::string::npos)
      << "models/yolo11n-pose.onnx has sha256 " << sha << ", which models/README.md does not name";
  EXPECT_NE(readme.find("AGPL-3.0"), std::string::npos);
}

TEST(RealData, Coco8PoseHasEightLabelledPhotosAndItsNotices) {
  EDGEQ_REQUIRE_REAL_DATA();
  const fs::path root = test::coco8_pose_dir();
  for (const char* split : {"train", "val"}) {
    int photos = 0;
    for (const auto& e : fs::directory_iterator(root / "images" / split)) {
      ++photos;
      const fs::path label = root / "labels" / split / e.path().stem().concat(".txt");
      EXPECT_TRUE(fs::is_regular_file(label)) << label << " is missing";
    }
    EXPECT_EQ(photos, 4) << split;
  }
  EXPECT_TRUE(fs::is_regular_file(root / "LICENSE"));
  EXPECT_TRUE(fs::is_regular_file(root / "NOTICE.md"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(test::source_dir()) / "LICENSE"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(test::source_dir()) / "THIRD_PARTY_NOTICES.md"));
}

}  // namespace
}  // namespace edgeq
