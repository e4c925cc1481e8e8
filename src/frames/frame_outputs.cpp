#include "frames/frame_outputs.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "core/error.h"
#include "core/json_text.h"
#include "vision/detections_json.h"
#include "vision/draw.h"
#include "vision/image_io.h"

namespace edgeq {
namespace fs = std::filesystem;

bool draws_to_folder(const std::string& source, const std::string& draw) {
  std::error_code ec;
  const bool single_image = !fs::is_directory(source, ec) && !is_video_path(source);
  return !(single_image && is_image_path(draw));
}

FrameOutputs::FrameOutputs(FrameOutputOptions opt) : opt_(std::move(opt)) {
  std::error_code ec;
  single_image_ = !fs::is_directory(opt_.source, ec) && !is_video_path(opt_.source);
  if (!opt_.draw.empty() && !single_image_)
    EDGEQ_CHECK(!is_image_path(opt_.draw),
                "drawings of a folder or video go to a folder, not to the image file ", opt_.draw);
  check_outputs();
}

void FrameOutputs::open() {
  if (!opt_.json.empty()) json_ = std::make_unique<AtomicFile>(opt_.json);
}

// Every drawing's path against every frame's file, and the JSON against the drawings: a drawing
// folder inside the image folder (or around it) would otherwise replace a photo not read yet.
void FrameOutputs::check_outputs() const {
  if (opt_.draw.empty() || !opt_.inputs) return;
  std::vector<RoleFile> inputs, outputs;
  for (const std::string& p : *opt_.inputs) {
    inputs.push_back({"image", p});
    outputs.push_back({"drawing", draw_path(p)});
  }
  outputs.push_back({"json", opt_.json, RoleFile::kText});
  check_distinct_files(inputs, outputs);
}

FrameOutputs::~FrameOutputs() = default;

// Where the drawing of a frame goes: the --draw file for a single image, else a file in the
// --draw folder named after the image (its path below the input folder) or the video frame.
std::string FrameOutputs::draw_path(const std::string& frame_name) const {
  if (!draws_to_folder(opt_.source, opt_.draw)) return opt_.draw;
  return (fs::path(opt_.draw) / frame_output_name(opt_.source, frame_name)).string();
}

void FrameOutputs::write(const FrameWork& w, const YoloLayout& layout) {
  const size_t n = w.detections.size();
  if (opt_.line) {
    std::ostringstream line;
    line << w.frame.name << ": " << n
         << (layout.is_pose() ? (n == 1 ? " person" : " people") : " detections") << std::fixed
         << std::setprecision(1) << " | read " << w.stage_ms[static_cast<int>(Stage::kRead)]
         << " ms, infer " << w.stage_ms[static_cast<int>(Stage::kInfer)] << " ms";
    opt_.line(line.str());
  }
  if (json_) {
    const std::string entry = json_text(detections_to_json(w.frame.name, w.detections));
    json_->write(single_image_ ? entry : (frames_ == 0 ? "[" : ",") + entry);
  }
  if (!opt_.draw.empty()) {
    cv::Mat canvas = w.frame.bgr.clone();
    draw_detections(canvas, w.detections, &layout);
    write_image_atomic(draw_path(w.frame.name), canvas);  // makes the folders it needs
  }
  ++frames_;
  detections_ += n;
}

void FrameOutputs::finish() {
  if (!json_) return;
  if (single_image_ && frames_ == 0) {  // nothing finished: write nothing
    json_.reset();
    return;
  }
  json_->write(single_image_ ? "\n" : frames_ == 0 ? "[]\n" : "]\n");
  json_->commit();
  json_.reset();
}

}  // namespace edgeq
