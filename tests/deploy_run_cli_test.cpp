// `edgeq run` over a generated video through the program: the pipeline gives the serial run's
// detections frame for frame and a timing report; a corrupt frame is skipped and counted; a video
// that cannot be opened is one line with nothing written; Ctrl-C (SIGINT) stops the pipeline and
// still writes the frames that finished; `scenes --video` writes the test video. Real yolo11n-pose
// panning over the coco8-pose photos.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_util.h"
#include "core/file_io.h"
#include "edgeq/data.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

struct Fixture {
  std::string model, photos, dir;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.dir = test::temp_dir("deploy_run");
    f.model = test::real_model_path();
    f.photos = test::coco8_pose_dir() + "/images";
    return f;
  }();
  return f;
}

// A 640x480 MJPG video of `frames` frames.
std::string video(const std::string& name, int frames) {
  const Fixture& fx = fixture();
  const std::string path = fx.dir + "/" + name;
  SceneVideoOptions o;
  o.frames = frames;
  o.images = fx.photos;
  o.hold = 6;
  write_scene_video(path, o);
  return path;
}

#define REQUIRE_FIXTURE()        \
  const Fixture& fx = fixture(); \
  std::printf("model: %s\n", fx.model.c_str())

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

void expect_latency(const nlohmann::json& l, const char* what) {
  EXPECT_GT(l["p50"].get<double>(), 0) << what;
  EXPECT_LE(l["p50"].get<double>(), l["p95"].get<double>()) << what;
  EXPECT_LE(l["p95"].get<double>(), l["max"].get<double>()) << what;
}

TEST(DeployRunCli, PipelineGivesTheSerialDetectionsFrameForFrame) {
  REQUIRE_FIXTURE();
  const std::string v = video("clip.avi", 36);
  const std::string d = fx.dir + "/same";
  auto s = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                         test::shell_quote(v) + " --json " + test::shell_quote(d + "/serial.json") +
                         " --report " + test::shell_quote(d + "/serial_report.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  auto p =
      test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                    test::shell_quote(v) + " --pipeline --pipeline-mode threads --queue 2 --json " +
                    test::shell_quote(d + "/pipe.json") + " --report " +
                    test::shell_quote(d + "/pipe_report.json"));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::printf("%s", p.out.substr(p.out.find("stage")).c_str());

  const auto serial = nlohmann::json::parse(read_file(d + "/serial.json"));
  const auto piped = nlohmann::json::parse(read_file(d + "/pipe.json"));
  ASSERT_EQ(piped.size(), 36u);
  size_t dets = 0;
  for (size_t i = 0; i < piped.size(); ++i) {
    EXPECT_EQ(piped[i]["image"], v + "#" + std::to_string(i));
    EXPECT_EQ(piped[i], serial[i]) << "frame " << i;
    dets += piped[i]["detections"].size();
  }
  std::printf("%zu detections in 36 frames, identical\n", dets);

  const auto rs = nlohmann::json::parse(read_file(d + "/serial_report.json"));
  const auto rp = nlohmann::json::parse(read_file(d + "/pipe_report.json"));
  EXPECT_EQ(rs["mode"], "serial");
  EXPECT_EQ(rp["mode"], "pipeline");
  EXPECT_EQ(rp["queue"], 2);
  for (const auto* r : {&rs, &rp}) {
    EXPECT_EQ((*r)["frames"], 36);
    EXPECT_EQ((*r)["detections"], dets);
    EXPECT_EQ((*r)["dropped"], 0);
    EXPECT_EQ((*r)["skipped"], 0);
    EXPECT_GT((*r)["frames_per_s"].get<double>(), 0);
    EXPECT_GT((*r)["peak_rss_bytes"].get<double>(), 1e6);
    for (const char* st : {"read", "infer", "post"}) expect_latency((*r)["stages"][st], st);
    expect_latency((*r)["end_to_end_ms"], "end-to-end");
  }
  EXPECT_LE(rp["queue_high_water"][0].get<int>(), 2);
  EXPECT_LE(rp["queue_high_water"][1].get<int>(), 2);
  // The last line is the headline.
  EXPECT_NE(p.out.find("36 frame(s)"), std::string::npos) << p.out;
  EXPECT_EQ(count_of(p.out, "| read "), 36u);  // one line per frame
  EXPECT_EQ(rp["pipeline_mode"], "threads");
  EXPECT_FALSE(rp.contains("pipeline_choice"));

  // auto: the first frames serially, then what it chose; the same detections either way, and the
  // report says what ran and why.
  auto a = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                         test::shell_quote(v) + " --pipeline --json " +
                         test::shell_quote(d + "/auto.json") + " --report " +
                         test::shell_quote(d + "/auto_report.json"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(d + "/auto.json")), serial);
  const auto ra = nlohmann::json::parse(read_file(d + "/auto_report.json"));
  EXPECT_EQ(ra["pipeline_mode"], "auto");
  const auto& choice = ra["pipeline_choice"];
  const std::string ran = choice["ran"];
  EXPECT_TRUE(ran == "threads" || ran == "serial") << ran;
  EXPECT_EQ(choice["infer_threads"], ra["infer_threads"]);
  EXPECT_EQ(choice["reason"].get<std::string>().rfind(ran + ":", 0), 0u) << choice;
  EXPECT_NE(a.out.find("pipeline " + ran + ":"), std::string::npos) << a.out;
  EXPECT_EQ(ra["frames"], 36);
}

// Overwrites the JPEG data of frame `k` of an MJPG AVI (its "00dc" chunk starting FF D8).
void corrupt_frame(const std::string& path, int k) {
  std::string bytes = read_file(path);
  int seen = 0;
  for (size_t p = bytes.find("00dc"); p != std::string::npos; p = bytes.find("00dc", p + 1)) {
    if (p + 10 > bytes.size() || static_cast<unsigned char>(bytes[p + 8]) != 0xFF ||
        static_cast<unsigned char>(bytes[p + 9]) != 0xD8)
      continue;
    if (seen++ < k) continue;
    for (size_t i = p + 8; i < p + 8 + 2000; ++i) bytes[i] = static_cast<char>(i * 7);
    write_file_atomic(path, bytes);
    return;
  }
  FAIL() << "no frame " << k << " in " << path;
}

TEST(DeployRunCli, CorruptFrameIsSkippedAndCounted) {
  REQUIRE_FIXTURE();
  const std::string v = video("corrupt.avi", 12);
  corrupt_frame(v, 5);
  const std::string d = fx.dir + "/corrupt";
  auto r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                         test::shell_quote(v) + " --pipeline --json " +
                         test::shell_quote(d + "/d.json") + " --report " +
                         test::shell_quote(d + "/r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.err, "skipping undecodable frame 5 of video"), 1u) << r.err;
  const auto rep = nlohmann::json::parse(read_file(d + "/r.json"));
  EXPECT_EQ(rep["skipped"], 1);
  EXPECT_EQ(rep["frames"], 11);
  const auto dets = nlohmann::json::parse(read_file(d + "/d.json"));
  ASSERT_EQ(dets.size(), 11u);
  EXPECT_EQ(dets[4]["image"], v + "#4");
  EXPECT_EQ(dets[5]["image"], v + "#6");  // names keep the frame's place in the file
  EXPECT_NE(r.out.find("skipped 1"), std::string::npos) << r.out;
}

// Sets the frame count an MJPG AVI's headers declare (the main header's dwTotalFrames and the
// video stream header's dwLength).
void declare_frames(const std::string& path, uint32_t frames) {
  std::string bytes = read_file(path);
  auto put = [&](size_t at) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((frames >> (8 * i)) & 0xFF);
  };
  const size_t avih = bytes.find("avih");
  size_t strh = bytes.find("strh");  // "strh", its size, then the stream type
  while (strh != std::string::npos && bytes.compare(strh + 8, 4, "vids") != 0)
    strh = bytes.find("strh", strh + 1);
  ASSERT_NE(avih, std::string::npos);
  ASSERT_NE(strh, std::string::npos);
  put(avih + 8 + 16);
  put(strh + 8 + 32);
  write_file_atomic(path, bytes);
}

// Headers are not trusted (issue 27): a video claiming 2^31 frames ends when its frames do (it
// used to retry reads up to the claimed count, ignoring Ctrl-C), and one declaring none still
// skips a corrupt frame and reads on (it used to end there, exit 0, "skipped 0").
TEST(DeployRunCli, FrameCountsInHeadersAreNotTrusted) {
  REQUIRE_FIXTURE();
  for (uint32_t declared : {0x7fffffffu, 0u}) {
    const std::string v = video("declared" + std::to_string(declared) + ".avi", 12);
    corrupt_frame(v, 5);
    declare_frames(v, declared);
    const std::string d = fx.dir + "/declared" + std::to_string(declared);
    auto r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                           test::shell_quote(v) + " --report " + test::shell_quote(d + "/r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rep = nlohmann::json::parse(read_file(d + "/r.json"));
    EXPECT_EQ(rep["frames"], 11) << declared;
    EXPECT_EQ(rep["skipped"], 1) << declared;
  }
}

// Keeps an MJPG AVI up to (not including) frame `k`: a file cut short, its header still
// declaring every frame.
void cut_before_frame(const std::string& path, int k) {
  const std::string bytes = read_file(path);
  int seen = 0;
  for (size_t p = bytes.find("00dc"); p != std::string::npos; p = bytes.find("00dc", p + 1)) {
    if (p + 10 > bytes.size() || static_cast<unsigned char>(bytes[p + 8]) != 0xFF) continue;
    if (seen++ == k) {
      write_file_atomic(path, bytes.substr(0, p));
      return;
    }
  }
  FAIL() << "no frame " << k << " in " << path;
}

// Issue 46: an AVI cut short (15 of 20 frames) or with 18 corrupt trailing frames reported
// "skipped 0" and nothing else. The frames the header declares and never came are reported as
// missing: a warning, the summary line and the report (the two cases read alike through OpenCV:
// every read fails from there on).
TEST(DeployRunCli, VideosEndingBeforeTheirDeclaredFramesAreReported) {
  const Fixture& fx = fixture();
  const std::string model = fx.dir + "/zoo160.onnx";  // what it detects does not matter here
  save_onnx(build_yolo11("yolo11n-pose", 160), model);
  for (const bool cut : {true, false}) {
    const std::string name = cut ? "cut" : "corrupt_end";
    const std::string v = video(name + ".avi", 20);
    if (cut)
      cut_before_frame(v, 15);
    else
      for (int k = 19; k >= 2; --k) corrupt_frame(v, k);  // from the end: frames count by content
    const int frames = cut ? 15 : 2;
    const std::string d = fx.dir + "/" + name;
    auto r = test::run_cli("run --model " + test::shell_quote(model) + " --image " +
                           test::shell_quote(v) + " --report " + test::shell_quote(d + "/r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rep = nlohmann::json::parse(read_file(d + "/r.json"));
    EXPECT_EQ(rep["frames"], frames) << name;
    EXPECT_EQ(rep["declared_frames"], 20) << name;
    EXPECT_EQ(rep["missing_frames"], 20 - frames) << name;
    const std::string said = "missing " + std::to_string(20 - frames) + " of the 20 frames";
    EXPECT_NE(r.out.find(said), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("ended at frame " + std::to_string(frames) +
                         " (nothing decodable in the next 25 reads) although its header declares "
                         "20 frames: " +
                         std::to_string(20 - frames) + " missing"),
              std::string::npos)
        << r.err;
  }
  // A complete video: nothing missing.
  const std::string v = video("whole.avi", 6);
  auto r =
      test::run_cli("run --model " + test::shell_quote(model) + " --image " + test::shell_quote(v) +
                    " --report " + test::shell_quote(fx.dir + "/whole/r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rep = nlohmann::json::parse(read_file(fx.dir + "/whole/r.json"));
  EXPECT_EQ(rep["missing_frames"], 0);
  EXPECT_EQ(rep["declared_frames"], 6);
  EXPECT_EQ(r.out.find("missing"), std::string::npos) << r.out;
}

TEST(DeployRunCli, VideoThatCannotBeOpenedIsOneLineAndWritesNothing) {
  REQUIRE_FIXTURE();
  const std::string d = test::temp_dir("deploy_bad");
  write_file_atomic(d + "/bad.mp4", std::string(10000, 'z'));
  for (const char* mode : {"", " --pipeline"}) {
    auto r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                           test::shell_quote(d + "/bad.mp4") + mode + " --json " +
                           test::shell_quote(d + "/d.json") + " --report " +
                           test::shell_quote(d + "/r.json"));
    EXPECT_EQ(r.exit_code, 1) << mode;
    EXPECT_NE(r.err.find("cannot open video"), std::string::npos) << r.err;
    EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
    EXPECT_FALSE(fs::exists(d + "/d.json"));
    EXPECT_FALSE(fs::exists(d + "/r.json"));
  }
  auto r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                         test::shell_quote(d + "/none.avi"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("video not found"), std::string::npos) << r.err;
  r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                    test::shell_quote(d + "/none.avi") + " --drop-late");
  EXPECT_NE(r.err.find("--drop-late and --pipeline-mode need --pipeline"), std::string::npos)
      << r.err;
  r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                    test::shell_quote(d + "/none.avi") + " --queue 4");
  EXPECT_NE(r.err.find("--queue, --drop-late and --pipeline-mode need --pipeline"),
            std::string::npos)
      << r.err;
  r = test::run_cli("run --model " + test::shell_quote(fx.model) + " --image " +
                    test::shell_quote(d + "/none.avi") + " --pipeline-mode threads");
  EXPECT_NE(r.err.find("need --pipeline"), std::string::npos) << r.err;
}

// `edgeq scenes --video`: the frames and size asked for, readable back; a bad size is one line.
TEST(DeployRunCli, ScenesWritesATestVideo) {
  const std::string d = test::temp_dir("deploy_scenes");
  auto r =
      test::run_cli("scenes --video " + test::shell_quote(d + "/v.avi") + " --n 7 --size 320x240");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  VideoFrameSource src(d + "/v.avi");
  Frame f;
  int n = 0;
  while (src.next(&f)) {
    EXPECT_EQ(f.bgr.cols, 320);
    EXPECT_EQ(f.bgr.rows, 240);
    ++n;
  }
  EXPECT_EQ(n, 7);
  r = test::run_cli("scenes --video " + test::shell_quote(d + "/w.avi") + " --size 320by240");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--size: expected WxH"), std::string::npos) << r.err;
  EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
  EXPECT_FALSE(fs::exists(d + "/w.avi"));
}

TEST(DeployRunCli, SigintStopsAndWritesWhatFinished) {
  REQUIRE_FIXTURE();
  const std::string v = video("long.avi", 400);
  const std::string d = test::temp_dir("deploy_sigint");
  const std::string bin = test::edgeq_bin();
  const std::string out = d + "/out.txt", json = d + "/d.json", report = d + "/r.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::freopen(out.c_str(), "w", stdout);
    std::freopen((d + "/err.txt").c_str(), "w", stderr);
    execl(bin.c_str(), bin.c_str(), "run", "--model", fx.model.c_str(), "--image", v.c_str(),
          "--pipeline", "--json", json.c_str(), "--report", report.c_str(), nullptr);
    _exit(127);
  }
  // Wait for a few finished frames (one line each), then Ctrl-C.
  for (int wait = 0; wait < 6000; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream f(out);
    std::string s((std::istreambuf_iterator<char>(f)), {});
    if (count_of(s, "| read ") >= 5) break;
  }
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(d + "/err.txt");
  const auto dets = nlohmann::json::parse(read_file(json));
  std::printf("stopped after %zu of 400 frames\n", dets.size());
  EXPECT_GE(dets.size(), 5u);
  EXPECT_LT(dets.size(), 400u);
  for (size_t i = 0; i < dets.size(); ++i) EXPECT_EQ(dets[i]["image"], v + "#" + std::to_string(i));
  const auto rep = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(rep["interrupted"], true);
  EXPECT_EQ(rep["frames"], dets.size());
  EXPECT_NE(read_file(out).find("interrupted"), std::string::npos);
  for (const auto& e : fs::directory_iterator(d))  // no temp file left behind
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

}  // namespace
}  // namespace edgeq
