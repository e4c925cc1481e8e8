// edgeq augment (vision/augment.h): labels follow the pixels through flips, scales, crops and
// mosaics, checked by painting a marker under each keypoint and finding it there afterwards.
#include <gtest/gtest.h>

#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "test_util.h"
#include "vision/augment.h"
#include "vision/image_io.h"

namespace edgeq {
namespace {

// A 200 x 120 gray image with one person: box (40, 20)-(120, 100), 17 keypoints on a line,
// each painted as a 5x5 square of its own colour; keypoints 15 and 16 unlabelled.
LabelledImage marked_source() {
  LabelledImage im;
  im.bgr = cv::Mat(120, 200, CV_8UC3, cv::Scalar(60, 60, 60));
  Label l;
  l.box = {40, 20, 120, 100};
  for (int k = 0; k < 17; ++k) {
    Keypoint p{float(45 + 4 * k), float(30 + 3 * k), k < 15 ? 2.f : 0.f};
    if (p.v > 0)
      cv::rectangle(im.bgr, cv::Rect(int(p.x) - 2, int(p.y) - 2, 5, 5),
                    cv::Scalar(10 * k, 250 - 10 * k, 128), cv::FILLED);
    else
      p = Keypoint{};
    l.kpts.push_back(p);
  }
  im.labels.push_back(l);
  return im;
}

cv::Vec3b colour_of(int k) {
  return cv::Vec3b(10 * k, 250 - 10 * k, 128);
}

// Every labelled keypoint sits on its own colour (within a couple of levels: resampling).
void expect_markers_follow(const LabelledImage& out, bool flipped_ids) {
  for (const Label& l : out.labels) {
    EXPECT_GE(l.box[0], 0);
    EXPECT_LE(l.box[2], out.bgr.cols);
    EXPECT_LE(l.box[3], out.bgr.rows);
    for (size_t k = 0; k < l.kpts.size(); ++k) {
      const Keypoint& p = l.kpts[k];
      if (p.v <= 0) continue;
      static const int flip[17] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15};
      const int painted = flipped_ids ? flip[k] : int(k);
      const cv::Vec3b got = out.bgr.at<cv::Vec3b>(int(p.y), int(p.x));
      const cv::Vec3b want = colour_of(painted);
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(got[c], want[c], 24) << "keypoint " << k << " at " << p.x << "," << p.y;
    }
  }
}

}  // namespace

TEST(Augment, FlipMirrorsPixelsBoxesAndSwapsSides) {
  std::mt19937_64 rng(1);
  LabelledImage out = augment_image({marked_source()}, AugmentKind::kFlip, rng);
  ASSERT_EQ(out.labels.size(), 1u);
  EXPECT_EQ(out.labels[0].box, (BoxXYXY{80, 20, 160, 100}));  // 200 - 120, 200 - 40
  // The left eye (1) of the mirrored person is the right eye (2) of the source, at 200 - x.
  EXPECT_FLOAT_EQ(out.labels[0].kpts[1].x, 200.f - (45 + 4 * 2));
  expect_markers_follow(out, true);
}

TEST(Augment, ScalesCropsAndMosaicsKeepLabelsOnThePixels) {
  std::vector<LabelledImage> sources{marked_source()};
  for (AugmentKind kind : {AugmentKind::kScale, AugmentKind::kCrop, AugmentKind::kMosaic}) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 6; ++i) {
      LabelledImage out = augment_image(sources, kind, rng);
      SCOPED_TRACE(augment_kind_name(kind));
      expect_markers_follow(out, false);
      if (kind == AugmentKind::kMosaic) {
        EXPECT_EQ(out.bgr.cols, 640);
        EXPECT_EQ(out.labels.size(), 4u);  // the person in each quadrant
      }
    }
  }
  EXPECT_THROW(parse_augment_kind("rotate"), Error);
}

TEST(Augment, WritesImagesAndLabelsThatReadBack) {
  std::string dir = test::temp_dir("augment");
  AugmentOptions opt;
  opt.n = 5;
  auto paths = write_augmented_split({marked_source()}, dir, opt);
  ASSERT_EQ(paths.size(), 5u);
  size_t people = 0;
  for (const std::string& p : paths) {
    cv::Mat im = read_image(p);
    auto labels = read_yolo_labels(label_path_for_image(p), im.cols, im.rows);
    people += labels.size();
    for (const Label& l : labels) EXPECT_EQ(l.kpts.size(), 17u);
  }
  EXPECT_GE(people, 5u);
  // Deterministic: the same seed writes the same bytes.
  std::string again = test::temp_dir("augment2");
  write_augmented_split({marked_source()}, again, opt);
  EXPECT_EQ(read_file(paths[3]), read_file(again + "/images/aug_003.jpg"));
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(again);
}

}  // namespace edgeq
