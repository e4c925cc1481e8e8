#include "quant/calibration_images.h"

#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/option_range.h"
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

std::vector<CalibrationImage> from_list_file(const std::string& list) {
  std::vector<CalibrationImage> out;
  fs::path base = fs::path(list).parent_path();
  std::stringstream ss(read_file(list, kMaxTextBytes));
  std::string line;
  while (std::getline(ss, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    size_t b = 0;
    while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
    line = line.substr(b);
    if (line.empty()) continue;
    fs::path p(line);
    if (p.is_relative()) p = base / p;
    out.push_back({p.string(), p.parent_path().string()});
  }
  EDGEQ_CHECK(!out.empty(), "image list '", list, "' names no image");
  return out;
}

}  // namespace

std::vector<CalibrationImage> list_calibration_images(const std::string& spec) {
  EDGEQ_CHECK(fs::exists(spec), "image path '", spec, "' does not exist");
  if (fs::is_directory(spec)) {
    std::vector<CalibrationImage> out;
    for (const std::string& p : list_images(spec)) out.push_back({p, parent_of(p, spec)});
    EDGEQ_CHECK(!out.empty(), "image folder '", spec,
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
