// Which images calibrate a model: listing (a folder, one image, or a text list), a deterministic
// seeded sample (stratified by sub-folder), and shards of that sample for parallel runs.
//
//   sample:  images are grouped by the folder that holds them (relative to the listed root).
//            Each group is shuffled with a seeded Fisher-Yates (mt19937_64, same result on every
//            platform); then groups, in name order, give one image each in turn (round robin)
//            until n are taken. With one group this is a plain seeded shuffle. n larger than the
//            number of images is clamped: repeating an image adds no information and would make
//            the stats claim images they did not see.
//   shard i/N: the sampled images at positions i, i + N, i + 2N, ... (0 <= i < N); the shards
//            of one sample are disjoint and together are the sample.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgeq {

struct CalibrationImage {
  std::string path;
  std::string group;  // the sub-folder it came from ("" for the root)
};

// A folder (recursive), a single image file, or a text file listing image paths one per line
// (relative paths are read from the list's folder; '#' starts a comment). A list is a .txt, .lst
// or .list file, or a file whose first entry is an existing image; every entry must be an existing
// file (checked here, before any work). Throws naming the path (escaped and shortened: nothing a
// file holds is echoed beyond a listed path) when it does not exist, holds no image or is neither
// an image, a folder nor a list.
std::vector<CalibrationImage> list_calibration_images(const std::string& spec);

std::vector<CalibrationImage> sample_calibration_images(std::vector<CalibrationImage> images,
                                                        size_t n, uint64_t seed);

struct Shard {
  int index = 0;
  int count = 1;
};
// "i/N"; throws for other forms or i outside 0..N-1.
Shard parse_shard(const std::string& s);
std::vector<CalibrationImage> shard_images(const std::vector<CalibrationImage>& sample,
                                           const Shard& shard);

// The preprocessing every calibration and evaluation path uses, as recorded in stats:
// "letterbox 640x640 pad 114, RGB, /255, NCHW".
std::string letterbox_preprocessing(int64_t height, int64_t width);

}  // namespace edgeq
