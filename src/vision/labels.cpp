#include "vision/labels.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"

namespace edgeq {

// Bounds that keep every value representable once scaled to pixels (float) and the class an int.
constexpr double kMaxClass = 1e6;
constexpr double kMaxCoordinate = 1e6;

static bool parse_number(const std::string& tok, double* v) {
  errno = 0;
  char* end = nullptr;
  *v = std::strtod(tok.c_str(), &end);
  return end != tok.c_str() && *end == '\0' && errno == 0 && std::isfinite(*v);
}

namespace {

// Values per keypoint of a line of n numbers (n > 5): 3 (x y v) or 2 (x y). With the model's
// keypoint count known, the one that gives it; else 3 where both divide.
size_t keypoint_dims(size_t n, const LabelSchema& schema) {
  const size_t rest = n - 5;
  if (schema.keypoints > 0 && rest == 2 * static_cast<size_t>(schema.keypoints)) return 2;
  return rest % 3 == 0 ? 3 : 2;
}

}  // namespace

std::vector<Label> parse_yolo_labels(const std::string& text, int img_w, int img_h,
                                     const std::string& what, const LabelSchema& schema) {
  EDGEQ_CHECK(img_w > 0 && img_h > 0, what, ": image size ", img_w, "x", img_h, " is empty");
  std::vector<Label> out;
  const std::string bom = "\xEF\xBB\xBF";
  std::istringstream in(text.compare(0, bom.size(), bom) == 0 ? text.substr(bom.size()) : text);
  std::string line;
  int line_no = 0;
  size_t count_seen = 0;  // numbers per line in this file (all lines must agree)
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream ls(line);
    std::vector<double> v;
    std::string tok;
    while (ls >> tok) {
      double x;
      EDGEQ_CHECK(parse_number(tok, &x), what, ":", line_no, ": '", tok, "' is not a number");
      v.push_back(x);
    }
    if (v.empty()) continue;
    const size_t n = v.size();
    EDGEQ_CHECK(n == 5 || (n > 5 && (n - 5) % 3 == 0) || (n > 5 && (n - 5) % 2 == 0), what, ":",
                line_no, ": expected 5 numbers (cls cx cy w h) or 5 + keypoints*3, got ", n);
    EDGEQ_CHECK(count_seen == 0 || count_seen == n, what, ":", line_no, ": has ", n,
                " numbers but earlier lines have ", count_seen);
    count_seen = n;
    EDGEQ_CHECK(v[0] >= 0 && v[0] == std::floor(v[0]) && v[0] <= kMaxClass, what, ":", line_no,
                ": class must be a non-negative integer (at most ", static_cast<int64_t>(kMaxClass),
                "), got ", v[0]);
    EDGEQ_CHECK(schema.classes <= 0 || v[0] < schema.classes, what, ":", line_no, ": class ", v[0],
                " is not a class of the model, which has ", schema.classes,
                schema.classes == 1 ? " class (0)"
                                    : " classes (0.." + std::to_string(schema.classes - 1) + ")");
    for (size_t i = 1; i < n; ++i)
      EDGEQ_CHECK(std::fabs(v[i]) <= kMaxCoordinate, what, ":", line_no, ": value ", v[i],
                  " is out of range (normalized coordinates lie within +-", kMaxCoordinate, ")");
    EDGEQ_CHECK(v[3] >= 0 && v[4] >= 0, what, ":", line_no, ": negative box width or height");
    EDGEQ_CHECK(v[3] >= kMinLabelBoxSize && v[4] >= kMinLabelBoxSize, what, ":", line_no,
                ": box width and height must be positive (at least ", kMinLabelBoxSize,
                " of the image), got ", v[3], " x ", v[4]);
    EDGEQ_CHECK(v[1] >= 0 && v[1] <= 1 && v[2] >= 0 && v[2] <= 1, what, ":", line_no,
                ": box centre (", v[1], ", ", v[2],
                ") is outside the image (normalized coordinates lie in [0, 1])");
    Label lab;
    lab.cls = static_cast<int>(v[0]);
    const double cx = v[1] * img_w, cy = v[2] * img_h, w = v[3] * img_w, h = v[4] * img_h;
    lab.box = {static_cast<float>(cx - w / 2), static_cast<float>(cy - h / 2),
               static_cast<float>(cx + w / 2), static_cast<float>(cy + h / 2)};
    if (n > 5) {
      const size_t kd = keypoint_dims(n, schema);
      const size_t nk = (n - 5) / kd;
      EDGEQ_CHECK(schema.keypoints <= 0 || nk == static_cast<size_t>(schema.keypoints), what, ":",
                  line_no, ": ", n - 5, " keypoint values, but the model's objects have ",
                  schema.keypoints, " keypoints (", 2 * schema.keypoints, " or ",
                  3 * schema.keypoints, " values)");
      for (size_t i = 5; i + kd <= n; i += kd) {
        Keypoint k;
        k.x = static_cast<float>(v[i] * img_w);
        k.y = static_cast<float>(v[i + 1] * img_h);
        k.v = kd == 3 ? static_cast<float>(v[i + 2]) : 2.0f;
        EDGEQ_CHECK(k.v >= 0 && k.v <= 2, what, ":", line_no, ": keypoint ", (i - 5) / kd,
                    " has visibility ", v[i + 2],
                    " (0 not labelled, 1 labelled but hidden, 2 visible)");
        lab.kpts.push_back(k);
      }
    }
    out.push_back(std::move(lab));
  }
  return out;
}

std::vector<Label> read_yolo_labels(const std::string& path, int img_w, int img_h,
                                    const LabelSchema& schema) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return parse_yolo_labels(read_file(path, kMaxTextBytes), img_w, img_h, path, schema);
}

std::string label_path_for_image(const std::string& image_path) {
  std::string p = image_path;
  const std::string sa = "/images/", sb = "/labels/";
  const size_t at = p.rfind(sa);
  if (at != std::string::npos) p.replace(at, sa.size(), sb);
  return std::filesystem::path(p).replace_extension(".txt").string();
}

std::string format_yolo_labels(const std::vector<Label>& labels, int img_w, int img_h) {
  std::string out;
  char buf[64];
  auto add = [&](double v) {
    std::snprintf(buf, sizeof buf, " %.6f", v);
    out += buf;
  };

  for (const Label& l : labels) {
    out += std::to_string(l.cls);
    add((l.box[0] + l.box[2]) / 2.0 / img_w);
    add((l.box[1] + l.box[3]) / 2.0 / img_h);
    add((l.box[2] - l.box[0]) / double(img_w));
    add((l.box[3] - l.box[1]) / double(img_h));
    for (const Keypoint& k : l.kpts) {
      add(k.x / double(img_w));
      add(k.y / double(img_h));
      add(k.v);
    }
    out += "\n";
  }
  return out;
}

}  // namespace edgeq
