// A generated test video (MJPG in AVI, written atomically): frames pan slowly over a series of
// pictures, synthetic street scenes or the photos of a folder, so that a run over it has people
// to find and no two neighbouring frames are the same.
#pragma once
#include <cstdint>
#include <string>

namespace edgeq {

struct SceneVideoOptions {
  int frames = 100;
  int width = 640, height = 480;
  double fps = 30;
  uint32_t seed = 0;   // synthetic scenes
  std::string images;  // a folder of photos to use instead of synthetic scenes ("" for none)
  int hold = 30;       // frames per picture (a 2-pixel pan step each)
};

void write_scene_video(const std::string& path, const SceneVideoOptions& opt);

}  // namespace edgeq
