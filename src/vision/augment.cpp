#include "vision/augment.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/option_range.h"

namespace edgeq {
namespace {

// COCO-17: nose, then left / right pairs (eyes, ears, shoulders, elbows, wrists, hips, knees,
// ankles). A mirror swaps each pair.
constexpr int kCocoFlip[17] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15};

double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// Maps labels by x' = s * x + dx, y' = s * y + dy into a w x h image.
std::vector<Label> map_labels(const std::vector<Label>& in, double s, double dx, double dy, int w,
                              int h) {
  std::vector<Label> out;
  for (const Label& l : in) {
    Label m = l;
    BoxXYXY b = {float(s * l.box[0] + dx), float(s * l.box[1] + dy), float(s * l.box[2] + dx),
                 float(s * l.box[3] + dy)};
    const double area = double(b[2] - b[0]) * (b[3] - b[1]);
    m.box = {std::clamp(b[0], 0.f, float(w)), std::clamp(b[1], 0.f, float(h)),
             std::clamp(b[2], 0.f, float(w)), std::clamp(b[3], 0.f, float(h))};
    const double kept = double(m.box[2] - m.box[0]) * (m.box[3] - m.box[1]);
    if (area <= 0 || kept < 0.4 * area) continue;
    if (m.box[2] - m.box[0] < kMinLabelBoxSize * w || m.box[3] - m.box[1] < kMinLabelBoxSize * h)
      continue;  // too small for a label file (vision/labels.h)
    for (Keypoint& k : m.kpts) {
      if (k.v <= 0) continue;
      k.x = float(s * k.x + dx);
      k.y = float(s * k.y + dy);
      if (k.x < 0 || k.y < 0 || k.x >= w || k.y >= h) k = Keypoint{};
    }
    out.push_back(std::move(m));
  }
  return out;
}

// `src` scaled by s and placed with its origin at (dx, dy) on a w x h gray canvas.
LabelledImage place(const LabelledImage& src, double s, double dx, double dy, int w, int h) {
  LabelledImage out;
  out.bgr = cv::Mat(h, w, CV_8UC3, cv::Scalar(114, 114, 114));
  cv::Mat m = (cv::Mat_<double>(2, 3) << s, 0, dx, 0, s, dy);
  cv::warpAffine(src.bgr, out.bgr, m, out.bgr.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
  out.labels = map_labels(src.labels, s, dx, dy, w, h);
  return out;
}

LabelledImage flip(const LabelledImage& src) {
  LabelledImage out;
  cv::flip(src.bgr, out.bgr, 1);
  const float w = float(src.bgr.cols);
  for (Label l : src.labels) {
    l.box = {w - l.box[2], l.box[1], w - l.box[0], l.box[3]};
    std::vector<Keypoint> k = l.kpts;
    for (size_t i = 0; i < k.size(); ++i) {
      const size_t from = k.size() == 17 ? kCocoFlip[i] : i;
      k[i] = l.kpts[from];
      if (k[i].v > 0) k[i].x = w - k[i].x;
    }
    l.kpts = std::move(k);
    out.labels.push_back(std::move(l));
  }
  return out;
}

LabelledImage mosaic(const std::vector<LabelledImage>& sources, std::mt19937_64& rng) {
  constexpr int kSide = 640;
  const int cx = int(uniform(rng, 0.3, 0.7) * kSide), cy = int(uniform(rng, 0.3, 0.7) * kSide);
  const cv::Rect quads[4] = {{0, 0, cx, cy},
                             {cx, 0, kSide - cx, cy},
                             {0, cy, cx, kSide - cy},
                             {cx, cy, kSide - cx, kSide - cy}};
  LabelledImage out;
  out.bgr = cv::Mat(kSide, kSide, CV_8UC3, cv::Scalar(114, 114, 114));
  for (const cv::Rect& q : quads) {
    const LabelledImage& src = sources[rng() % sources.size()];
    const double s = std::min(double(q.width) / src.bgr.cols, double(q.height) / src.bgr.rows);
    const double dx = q.x + (q.width - s * src.bgr.cols) / 2,
                 dy = q.y + (q.height - s * src.bgr.rows) / 2;
    cv::Mat m = (cv::Mat_<double>(2, 3) << s, 0, dx, 0, s, dy);
    cv::Mat tile(kSide, kSide, CV_8UC3, cv::Scalar(114, 114, 114));
    cv::warpAffine(src.bgr, tile, m, tile.size(), cv::INTER_AREA, cv::BORDER_TRANSPARENT);
    tile(q).copyTo(out.bgr(q));
    for (Label& l : map_labels(src.labels, s, dx, dy, kSide, kSide)) out.labels.push_back(l);
  }
  return out;
}

}  // namespace

AugmentKind parse_augment_kind(const std::string& s) {
  if (s == "flip") return AugmentKind::kFlip;
  if (s == "scale") return AugmentKind::kScale;
  if (s == "crop") return AugmentKind::kCrop;
  if (s == "mosaic") return AugmentKind::kMosaic;
  fail("unknown augmentation '", s, "' (choose flip, scale, crop or mosaic)");
}

const char* augment_kind_name(AugmentKind k) {
  switch (k) {
    case AugmentKind::kFlip:
      return "flip";
    case AugmentKind::kScale:
      return "scale";
    case AugmentKind::kCrop:
      return "crop";
    default:
      return "mosaic";
  }
}

LabelledImage augment_image(const std::vector<LabelledImage>& sources, AugmentKind kind,
                            std::mt19937_64& rng) {
  EDGEQ_CHECK(!sources.empty(), "augment: no source images");
  if (kind == AugmentKind::kMosaic) return mosaic(sources, rng);
  const LabelledImage& src = sources[rng() % sources.size()];
  const int w = src.bgr.cols, h = src.bgr.rows;
  if (kind == AugmentKind::kFlip) return flip(src);
  if (kind == AugmentKind::kScale) {
    const double s = uniform(rng, 0.6, 1.4);
    const double px = uniform(rng, 0, w), py = uniform(rng, 0, h);  // the fixed point
    return place(src, s, px * (1 - s), py * (1 - s), w, h);
  }
  const int cw = int(uniform(rng, 0.55, 0.9) * w), ch = int(uniform(rng, 0.55, 0.9) * h);
  const int x0 = int(uniform(rng, 0, w - cw)), y0 = int(uniform(rng, 0, h - ch));
  LabelledImage out;
  out.bgr = src.bgr(cv::Rect(x0, y0, cw, ch)).clone();
  out.labels = map_labels(src.labels, 1.0, -x0, -y0, cw, ch);
  return out;
}

std::vector<std::string> write_augmented_split(const std::vector<LabelledImage>& sources,
                                               const std::string& out_dir,
                                               const AugmentOptions& opt) {
  check_option("n", opt.n, ranges::kFrames);
  EDGEQ_CHECK(!opt.kinds.empty(), "augment: no kinds of variant");
  namespace fs = std::filesystem;
  ensure_dir((fs::path(out_dir) / "images").string());
  ensure_dir((fs::path(out_dir) / "labels").string());
  std::mt19937_64 rng(opt.seed);
  std::vector<std::string> paths;
  for (int i = 0; i < opt.n; ++i) {
    // A front end's Ctrl-C / SIGTERM (core/interrupt.h) stops between two variants.
    if (interrupt_requested())
      throw Cancelled(std::to_string(i) + " of " + std::to_string(opt.n) +
                      " variants (each with its labels) are written to " + out_dir);
    const AugmentKind kind = opt.kinds[rng() % opt.kinds.size()];
    LabelledImage im = augment_image(sources, kind, rng);
    char stem[32];
    std::snprintf(stem, sizeof stem, "aug_%03d", i);
    std::vector<uchar> jpg;
    EDGEQ_CHECK(cv::imencode(".jpg", im.bgr, jpg, {cv::IMWRITE_JPEG_QUALITY, 95}),
                "augment: could not encode image ", i);
    const std::string image =
        (fs::path(out_dir) / "images" / (std::string(stem) + ".jpg")).string();
    // The labels first: a process killed between the two leaves a label without its image (not
    // read), never an image without its labels (read as one without objects).
    write_file_atomic((fs::path(out_dir) / "labels" / (std::string(stem) + ".txt")).string(),
                      format_yolo_labels(im.labels, im.bgr.cols, im.bgr.rows));
    write_file_atomic(image, std::string(jpg.begin(), jpg.end()));
    paths.push_back(image);
  }
  return paths;
}

}  // namespace edgeq
