// edgeq scenes: write deterministic synthetic images, or a test video (for demos, calibration
// smoke runs and the deploy pipeline's benchmark).
#include <iostream>

#include "commands.h"
#include "edgeq/data.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {

void register_scenes(CLI::App& app) {
  struct Args {
    std::string out, video, size = "640x480";
    int n = 8;
    uint32_t seed = 0;
    SceneVideoOptions v;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "scenes", "Write synthetic test images (stick figures on streets) or a test video");
  cmd->add_option("--out", a->out, "folder to write images into");
  add_number(cmd, "--n", a->n, ranges::kFrames, "number of images, or of frames with --video")
      ->capture_default_str();
  add_number(cmd, "--seed", a->seed, ranges::kSeed32, "seed")->capture_default_str();
  auto* video = cmd->add_option("--video", a->video,
                                "write an MJPG .avi instead: frames panning over 8 synthetic "
                                "scenes (or the photos of --images), 30 frames each");
  cmd->add_option("--images", a->v.images, "with --video: a folder of photos to pan over")
      ->needs(video);
  cmd->add_option("--size", a->size, "with --video: WxH")->capture_default_str()->needs(video);
  add_number(cmd, "--fps", a->v.fps, ranges::kFps, "with --video: frames per second")
      ->capture_default_str()
      ->needs(video);
  cmd->callback([a] {
    EDGEQ_CHECK(a->out.empty() != a->video.empty(), "give either --out DIR or --video FILE.avi");
    check_distinct_files({image_input("--images", a->v.images)},
                         {{"--out", a->out, RoleFile::kFolder}, {"--video", a->video}});
    if (!a->video.empty()) {
      const size_t x = a->size.find('x');
      EDGEQ_CHECK(x != std::string::npos, "--size: expected WxH (e.g. 640x480), got '", a->size,
                  "'");
      a->v.width = parse_option<int>("--size width", a->size.substr(0, x), ranges::kImageSide);
      a->v.height = parse_option<int>("--size height", a->size.substr(x + 1), ranges::kImageSide);
      a->v.frames = a->n;
      a->v.seed = a->seed;
      write_scene_video(a->video, a->v);
      std::cout << "wrote " << a->n << " frames (" << a->size << ") to " << printable(a->video)
                << "\n";
      return;
    }
    auto paths = write_synthetic_scenes(a->out, a->n, a->seed);
    std::cout << "wrote " << paths.size() << " images to " << printable(a->out) << "\n";
  });
}

}  // namespace edgeq::cli
