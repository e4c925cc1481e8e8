// The deploy acceptance run on a generated 1,000-frame 640x480 video (OpenCV writes it, MJPG):
// `run --pipeline` gives the serial run's detections frame for frame, and its peak RSS over 1,000
// frames is within 10% of that over 200 (bounded queues: memory does not grow with the frame
// count). The model is the zoo yolo11n-pose at --imgsz 160 (the YOLO11n-pose topology on a
// quarter-size input) so that 2,200 frames fit the suite on two cores; the speed of the pipeline
// against the serial run is measured with the full-size model by scripts/bench_pipeline.sh.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "edgeq/data.h"
#include "test_util.h"

namespace edgeq {
namespace {

std::string scene_video(const std::string& path, int frames) {
  SceneVideoOptions o;
  o.frames = frames;
  o.hold = 25;
  write_scene_video(path, o);
  return path;
}

TEST(DeployThousandFrames, PipelineMatchesSerialAndMemoryStaysFlat) {
  const std::string d = test::temp_dir("deploy_1000");
  const std::string model = d + "/small.onnx";
  auto z = test::run_cli("zoo yolo11n-pose --imgsz 160 -o " + test::shell_quote(model));
  ASSERT_EQ(z.exit_code, 0) << z.err;
  const std::string v1000 = scene_video(d + "/1000.avi", 1000);
  const std::string v200 = scene_video(d + "/200.avi", 200);
  // A low threshold: the untrained zoo model is unsure of everything, and the comparison needs
  // detections to compare. One inference thread: on a busy 2-core machine a 2-thread OpenMP team
  // per frame is several times slower than one thread.
  const std::string common = "run --model " + test::shell_quote(model) + " --conf 0.05 --threads 1";

  auto s = test::run_cli(common + " --image " + test::shell_quote(v1000) + " --json " +
                         test::shell_quote(d + "/serial.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  auto p = test::run_cli(common + " --image " + test::shell_quote(v1000) + " --pipeline --json " +
                         test::shell_quote(d + "/pipe.json") + " --report " +
                         test::shell_quote(d + "/pipe1000.json"));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto p200 = test::run_cli(common + " --image " + test::shell_quote(v200) +
                            " --pipeline --report " + test::shell_quote(d + "/pipe200.json"));
  ASSERT_EQ(p200.exit_code, 0) << p200.err;

  const auto serial = nlohmann::json::parse(read_file(d + "/serial.json"));
  const auto piped = nlohmann::json::parse(read_file(d + "/pipe.json"));
  ASSERT_EQ(serial.size(), 1000u);
  ASSERT_EQ(piped.size(), 1000u);
  size_t dets = 0, frames_with = 0;
  for (size_t i = 0; i < piped.size(); ++i) {
    ASSERT_EQ(piped[i]["image"], v1000 + "#" + std::to_string(i));
    EXPECT_EQ(piped[i], serial[i]) << "frame " << i;
    dets += piped[i]["detections"].size();
    frames_with += !piped[i]["detections"].empty();
  }
  std::printf("%zu detections in 1000 frames (%zu frames with any), identical serial/pipelined\n",
              dets, frames_with);
  EXPECT_GE(frames_with, 100u) << "too few detections for the comparison to mean much";

  const auto r1000 = nlohmann::json::parse(read_file(d + "/pipe1000.json"));
  const auto r200 = nlohmann::json::parse(read_file(d + "/pipe200.json"));
  EXPECT_EQ(r1000["frames"], 1000);
  EXPECT_EQ(r200["frames"], 200);
  EXPECT_EQ(r1000["dropped"], 0);
  EXPECT_EQ(r1000["detections"], dets);
  const double rss1000 = r1000["peak_rss_bytes"].get<double>();
  const double rss200 = r200["peak_rss_bytes"].get<double>();
  std::printf("peak RSS: %.1f MiB for 1000 frames, %.1f MiB for 200 (%+.1f%%)\n", rss1000 / 1048576,
              rss200 / 1048576, 100 * (rss1000 - rss200) / rss200);
  EXPECT_LE(std::abs(rss1000 - rss200), 0.10 * rss200);
}

}  // namespace
}  // namespace edgeq
