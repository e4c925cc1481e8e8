// Small JPEG thumbnails of test images, base64 for embedding in the HTML report.
#pragma once
#include <string>
#include <vector>

namespace edgeq {

struct StudyThumbnail {
  std::string name;           // what the report calls the image (its file name, or as set)
  int width = 0, height = 0;  // of the original image (detections are in these pixels)
  std::string jpeg_base64;    // at most `max_side` pixels on the long side
};

// Throws naming the file when an image cannot be read.
StudyThumbnail make_thumbnail(const std::string& path, int max_side = 240, int quality = 70);

}  // namespace edgeq
