// edgeq run: detect (and for pose models, find keypoints) on images, a folder or a video:
// letterbox -> Executor (fp32) -> decode + NMS -> original-image coordinates. Prints one line per
// image; optionally writes detections JSON and drawn images.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "cli/model_input.h"
#include "cli/run_options.h"
#include "core/error.h"
#include "core/file_io.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "vision/detections_json.h"
#include "vision/draw.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/postprocess.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct RunArgs {
  std::string model, image, json, draw;
  PostprocessOptions post;
  RunOptions run;
};

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Where the drawing of `frame` goes: the --draw file for a single image, else a file in the
// --draw folder named after the image (its path below the input folder) or the video frame.
std::string draw_path(const RunArgs& a, bool single_file, const std::string& frame_name) {
  if (single_file && is_image_path(a.draw)) return a.draw;
  fs::path out = fs::path(a.draw) / frame_output_name(a.image, frame_name);
  ensure_dir(out.parent_path().string());
  return out.string();
}

void run_run(const RunArgs& a) {
  std::unique_ptr<FrameSource> frames = open_frames(a.image);  // fails fast on a bad --image
  std::error_code ec;
  const bool single_file = !fs::is_directory(a.image, ec) && !is_video_path(a.image);
  if (!a.draw.empty() && !single_file)
    EDGEQ_CHECK(!is_image_path(a.draw),
                "--draw must be a folder when --image is a folder or video: ", a.draw);

  Graph g = load_onnx(a.model);
  const ValueInfo in = yolo_image_input(g);
  const int in_h = yolo_input_height(g), in_w = yolo_input_width(g);
  const std::string out_name = require_yolo_head_output(g);
  const auto kpt_shape = g.metadata_value("kpt_shape");
  const auto names = g.metadata_value("names");

  Executor ex(std::move(g), a.run.executor());
  print_notices(ex);

  nlohmann::json results = nlohmann::json::array();
  std::vector<double> infer_ms;
  size_t total = 0;
  Frame f;
  std::optional<YoloLayout> layout;
  while (frames->next(&f)) {
    auto t0 = Clock::now();
    LetterboxInfo lb;
    Tensor x = preprocess_image(f.bgr, in_h, in_w, &lb);
    const double pre = ms_since(t0);
    auto t1 = Clock::now();
    auto outputs = ex.run({{in.name, x}});
    const double inf = ms_since(t1);
    const Tensor& y = outputs.at(out_name);
    if (!layout) layout = resolve_yolo_layout(y.shape(), kpt_shape, names);
    auto t2 = Clock::now();
    std::vector<Detection> dets = postprocess(y, lb, a.post, *layout);
    const double post = ms_since(t2);
    infer_ms.push_back(inf);
    total += dets.size();

    std::cout << f.name << ": " << dets.size()
              << (layout->is_pose() ? (dets.size() == 1 ? " person" : " people") : " detections")
              << std::fixed << std::setprecision(1) << " | pre " << pre << " ms, infer " << inf
              << " ms, post " << post << " ms" << std::defaultfloat << "\n";
    if (!a.json.empty()) results.push_back(detections_to_json(f.name, dets));
    if (!a.draw.empty()) {
      cv::Mat canvas = f.bgr.clone();
      draw_detections(canvas, dets, &*layout);
      write_image_atomic(draw_path(a, single_file, f.name), canvas);
    }
  }
  EDGEQ_CHECK(!infer_ms.empty(), "no readable images in ", a.image);

  if (!a.json.empty()) {
    const nlohmann::json doc = single_file ? results[0] : results;
    write_file_atomic(a.json, doc.dump() + "\n");
  }
  std::sort(infer_ms.begin(), infer_ms.end());
  std::cout << infer_ms.size() << " image(s), " << total << " detection(s); inference min "
            << std::fixed << std::setprecision(1) << infer_ms.front() << " ms, median "
            << infer_ms[infer_ms.size() / 2] << " ms (" << ex.threads() << " threads)\n";
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Detect objects / people (with keypoints) in an image, a folder of images or a video");
  cmd->add_option("--model", a->model, "ONNX model (YOLO detect or pose, raw output)")->required();
  cmd->add_option("--image", a->image, "image file, folder (recursive) or video file")->required();
  cmd->add_option("--conf", a->post.conf, "keep detections with score > conf")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--iou", a->post.iou, "NMS IoU threshold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-det", a->post.max_det, "at most this many detections per image")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_run_options(cmd, a->run);
  cmd->add_option("--json", a->json,
                  "write detections JSON (one object for an image file, an array otherwise)");
  cmd->add_option("--draw", a->draw, "write drawn image(s): a file for one image, else a folder");
  cmd->callback([a] { run_run(*a); });
}

}  // namespace edgeq::cli
