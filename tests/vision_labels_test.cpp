// YOLO txt label parsing (values and errors) on hand-written text.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "test_util.h"
#include "vision/labels.h"

namespace edgeq {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_yolo_labels(text, 100, 200, "x.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(VisionLabels, DetectLineToPixels) {
  // 100 x 200 image: cx 50, cy 100, w 20, h 80 -> [40, 60, 60, 140].
  auto l = parse_yolo_labels("0 0.5 0.5 0.2 0.4\n\n3 0.1 0.1 0.2 0.2\n", 100, 200);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].cls, 0);
  EXPECT_FLOAT_EQ(l[0].box[0], 40);
  EXPECT_FLOAT_EQ(l[0].box[1], 60);
  EXPECT_FLOAT_EQ(l[0].box[2], 60);
  EXPECT_FLOAT_EQ(l[0].box[3], 140);
  EXPECT_TRUE(l[0].kpts.empty());
  EXPECT_EQ(l[1].cls, 3);
}

TEST(VisionLabels, PoseKeypointsToPixels) {
  // Two keypoints (x y v): (0.25, 0.5, 2) -> (25, 100); (0, 0, 0) unlabelled.
  auto l = parse_yolo_labels("0 0.5 0.5 0.2 0.4 0.25 0.5 2 0 0 0", 100, 200);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_EQ(l[0].kpts.size(), 2u);
  EXPECT_FLOAT_EQ(l[0].kpts[0].x, 25);
  EXPECT_FLOAT_EQ(l[0].kpts[0].y, 100);
  EXPECT_FLOAT_EQ(l[0].kpts[0].v, 2);
  EXPECT_FLOAT_EQ(l[0].kpts[1].v, 0);
}

TEST(VisionLabels, ErrorsNameFileAndLine) {
  std::string e = error_of("0 0.5 0.5 0.2 0.4\n0 0.5 0.5 0.2\n");
  EXPECT_NE(e.find("x.txt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("got 4"), std::string::npos) << e;

  e = error_of("0 0.5 abc 0.2 0.4\n");
  EXPECT_NE(e.find("x.txt:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("'abc'"), std::string::npos) << e;

  e = error_of("0.5 0.5 0.5 0.2 0.4\n");
  EXPECT_NE(e.find("class must be a non-negative integer"), std::string::npos) << e;

  e = error_of("-1 0.5 0.5 0.2 0.4\n");
  EXPECT_NE(e.find("class"), std::string::npos) << e;

  e = error_of("0 0.5 0.5 0.2 0.4\n0 0.5 0.5 0.2 0.4 0.1 0.1 2\n");
  EXPECT_NE(e.find("x.txt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("earlier lines have 5"), std::string::npos) << e;

  e = error_of("0 0.5 0.5 -0.2 0.4\n");
  EXPECT_NE(e.find("negative"), std::string::npos) << e;

  e = error_of("0 0.5 0.5 0.2 0.4 1e999\n");  // 6 numbers and an overflow
  EXPECT_NE(e.find("x.txt:1:"), std::string::npos) << e;
}

std::string error_for(const std::string& text, const LabelSchema& schema) {
  try {
    parse_yolo_labels(text, 100, 200, "x.txt", schema);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Issue 46: visibility -3 or 7, negative centres and zero sizes were accepted, and a class the
// model does not have gave mAP 0 without a word. Each is one line naming file and line now.
TEST(VisionLabels, ValuesAreCheckedAgainstTheModel) {
  const LabelSchema pose{1, 2};  // one class, two keypoints
  const std::string ok = "0 0.5 0.5 0.2 0.4 0.1 0.2 2 0.3 0.4 0\n";
  EXPECT_EQ(error_for(ok, pose), "");
  EXPECT_EQ(error_for("0 0 1 1e-6 1\n", {}), "");  // the edges and the smallest box
  const std::pair<std::string, std::string> bad[] = {
      {"0 0.5 0.5 0.2 0.4\n5 0.5 0.5 0.2 0.4\n",
       "x.txt:2: class 5 is not a class of the model, which has 1 class (0)"},
      {"0 0.5 0.5 0.2 0.4 0.1 0.2 -3 0.3 0.4 2\n", "x.txt:1: keypoint 0 has visibility -3"},
      {"0 0.5 0.5 0.2 0.4 0.1 0.2 2 0.3 0.4 7\n", "x.txt:1: keypoint 1 has visibility 7"},
      {"0 -0.1 0.5 0.2 0.4\n", "x.txt:1: box centre (-0.1, 0.5) is outside the image"},
      {"0 0.5 1.5 0.2 0.4\n", "box centre (0.5, 1.5)"},
      {"0 0.5 0.5 0 0.4\n", "x.txt:1: box width and height must be positive"},
      {"0 0.5 0.5 0.2 1e-9\n", "must be positive"},
      {"0 0.5 0.5 0.2 0.4 0.1 0.2 2\n",
       "x.txt:1: 3 keypoint values, but the model's objects have 2"},
  };
  for (const auto& [text, needle] : bad) {
    const std::string e = error_for(text, pose);
    EXPECT_NE(e.find(needle), std::string::npos) << text << " -> " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  EXPECT_NE(error_for("3 0.5 0.5 0.2 0.4\n", {3, 0}).find("has 3 classes (0..2)"),
            std::string::npos);
  EXPECT_EQ(error_for("3 0.5 0.5 0.2 0.4\n", {}), "");  // no model: any class
  // With the model's keypoint count known, 5 + 2k numbers are k keypoints of x y (not 2k/3 of
  // x y v): 2 keypoints in 4 values.
  const auto xy = parse_yolo_labels("0 0.5 0.5 0.2 0.4 0.1 0.2 0.3 0.4\n", 100, 200, "x", {1, 2});
  ASSERT_EQ(xy.at(0).kpts.size(), 2u);
  EXPECT_FLOAT_EQ(xy[0].kpts[1].y, 80);
}

// Issue 46: a byte order mark at the start of a label file (Windows editors write one) gave
// "'\ufeff0' is not a number"; it is skipped.
TEST(VisionLabels, ByteOrderMarkIsSkipped) {
  const auto l = parse_yolo_labels(
      "\xEF\xBB\xBF"
      "0 0.5 0.5 0.2 0.4\n",
      100, 200, "x.txt");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].cls, 0);
  // Only at the start: elsewhere it is a character that is no number.
  EXPECT_NE(error_of("0 0.5 0.5 0.2 0.4\n\xEF\xBB\xBF"
                     "0 0.5 0.5 0.2 0.4\n")
                .find("x.txt:2:"),
            std::string::npos);
}

TEST(VisionLabels, MissingFileMeansNoObjects) {
  EXPECT_TRUE(read_yolo_labels("/nonexistent/labels/a.txt", 10, 10).empty());
}

TEST(VisionLabels, LabelPathForImage) {
  EXPECT_EQ(label_path_for_image("/d/coco8-pose/images/val/000000000110.jpg"),
            "/d/coco8-pose/labels/val/000000000110.txt");
  EXPECT_EQ(label_path_for_image("/a/images/b/images/c.png"), "/a/images/b/labels/c.txt");
}

TEST(VisionLabels, RealCoco8PoseFile) {
  const std::string path = test::source_dir() + "/data/coco8-pose/labels/train/000000000049.txt";
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing from this checkout";
  auto l = read_yolo_labels(path, 1000, 500);
  ASSERT_EQ(l.size(), 2u);  // the file holds two people
  ASSERT_EQ(l[0].kpts.size(), 17u);
  // First line: "0 0.620039 0.593900 0.172415 0.146080 0.658793 0.552000 2.000000 ..."
  EXPECT_NEAR(l[0].box[0], (0.620039 - 0.172415 / 2) * 1000, 1e-3);
  EXPECT_NEAR(l[0].kpts[0].x, 658.793, 1e-3);
  EXPECT_NEAR(l[0].kpts[0].y, 276.0, 1e-3);
  EXPECT_EQ(l[0].kpts[4].v, 0);
}

}  // namespace
}  // namespace edgeq
