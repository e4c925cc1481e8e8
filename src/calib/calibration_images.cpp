#include "calib/calibration_images.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/option_range.h"
#include "core/printable.h"
#include "vision/image_io.h"

namespace edgeq {
namespace fs = std::filesystem;

namespace {

std::string parent_of(const std::string& path, const std::string& root) {
  fs::path parent = fs::path(path).parent_path();
  if (root.empty()) return parent.string();
  std::string rel = parent.lexically_relative(root).string();
  return rel == "." ? "" : rel;
}

bool has_list_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".txt" || ext == ".lst" || ext == ".list";
}

// The entries of a list file: one path a line, '#' starts a comment, blanks are trimmed.
std::vector<std::pair<size_t, std::string>> list_entries(const std::string& text) {
  std::vector<std::pair<size_t, std::string>> out;
  std::stringstream ss(text);
  std::string line;
  for (size_t line_no = 1; std::getline(ss, line); ++line_no) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    size_t b = 0;
    while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
    if (b < line.size()) out.emplace_back(line_no, line.substr(b));
  }
  return out;
}

// A file named as images that is not an image or a folder is read as a list only when it says it
// is one: a list extension, or a first entry that names an image file. Anything else (a config
// file, a video, a binary) is refused without echoing a byte of it.
std::vector<CalibrationImage> from_list_file(const std::string& list) {
  if (is_video_path(list))
    fail("'", printable_path(list), "' is a video: images are read from an image, a folder or a ",
         "list of image paths (.txt); videos are run frame by frame by detect (edgeq run)");
  const std::string text = read_file(list, kMaxTextBytes);
  const fs::path base = fs::path(list).parent_path();
  const auto resolve = [&](const std::string& entry) {
    fs::path p(entry);
    return p.is_relative() ? base / p : p;
  };
  const auto entries = text.find('\0') == std::string::npos
                           ? list_entries(text)
                           : std::vector<std::pair<size_t, std::string>>{};
  EDGEQ_CHECK(!entries.empty() || !has_list_extension(list), "image list '", printable_path(list),
              "' names no image");
  std::error_code ec;
  const bool is_list =
      !entries.empty() &&
      (has_list_extension(list) ||
       (is_image_path(entries[0].second) && fs::is_regular_file(resolve(entries[0].second), ec)));
  EDGEQ_CHECK(is_list, "'", printable_path(list),
              "' is not an image (jpg, jpeg, png, bmp, webp), a folder or an image list (a .txt, "
              ".lst or .list file, or one whose first line is an image path)");
  std::vector<CalibrationImage> out;
  for (const auto& [line_no, entry] : entries) {
    const fs::path p = resolve(entry);
    EDGEQ_CHECK(fs::is_regular_file(p, ec), "image list '", printable_path(list), "' line ",
                line_no, ": no image file '", printable_path(p.string(), 64), "'");
    out.push_back({p.string(), p.parent_path().string()});
  }
  return out;
}

}  // namespace

std::vector<CalibrationImage> list_calibration_images(const std::string& spec) {
  std::error_code ec;
  EDGEQ_CHECK(fs::exists(spec, ec), "image path '", printable_path(spec), "' does not exist");
  if (fs::is_directory(spec, ec)) {
    std::vector<CalibrationImage> out;
    for (const std::string& p : list_images(spec)) out.push_back({p, parent_of(p, spec)});
    EDGEQ_CHECK(!out.empty(), "image folder '", printable_path(spec),
                "' holds no images (jpg, jpeg, png, bmp, webp)");
    return out;
  }
  if (is_image_path(spec)) return {{spec, ""}};
  return from_list_file(spec);
}

std::vector<CalibrationImage> sample_calibration_images(std::vector<CalibrationImage> images,
                                                        size_t n, uint64_t seed) {
  std::map<std::string, std::vector<CalibrationImage>> groups;
  for (auto& im : images) groups[im.group].push_back(std::move(im));
  std::mt19937_64 rng(seed);
  for (auto& [name, list] : groups) {
    // Fisher-Yates with a plain modulo: the same order on every standard library.
    for (size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[rng() % i]);
  }
  std::vector<CalibrationImage> out;
  for (size_t round = 0; out.size() < n; ++round) {
    bool any = false;
    for (auto& [name, list] : groups) {
      if (round >= list.size() || out.size() >= n) continue;
      out.push_back(list[round]);
      any = true;
    }
    if (!any) break;
  }
  return out;
}

Shard parse_shard(const std::string& s) {
  Shard sh;
  const size_t slash = s.find('/');
  EDGEQ_CHECK(slash != std::string::npos, "shard '", s, "' is not of the form i/N (e.g. 0/4)");
  sh.count = parse_option<int>("shard '" + s + "': N", s.substr(slash + 1), ranges::kShards);
  sh.index = parse_option<int>("shard '" + s + "': i", s.substr(0, slash),
                               {0, static_cast<long double>(sh.count - 1), true, false, ""});
  return sh;
}

std::vector<CalibrationImage> shard_images(const std::vector<CalibrationImage>& sample,
                                           const Shard& shard) {
  std::vector<CalibrationImage> out;
  for (size_t i = shard.index; i < sample.size(); i += shard.count) out.push_back(sample[i]);
  return out;
}

std::string letterbox_preprocessing(int64_t height, int64_t width) {
  return "letterbox " + std::to_string(width) + "x" + std::to_string(height) +
         " pad 114, RGB, /255, NCHW";
}

}  // namespace edgeq
