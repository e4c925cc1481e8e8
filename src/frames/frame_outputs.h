// What a run writes about each finished frame: a line on the console, the detections JSON
// (streamed to a temp file, committed whole by finish(): an interrupted run still writes the
// frames that finished, a failed one leaves nothing half-written) and drawn images.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/file_io.h"
#include "frames/frame_stages.h"
#include "vision/yolo_layout.h"

namespace edgeq {

struct FrameOutputOptions {
  std::string source;  // the --image spec: an image, a folder or a video (names drawn files)
  std::string json;    // detections JSON; "" for none
  std::string draw;    // drawn images: a file for a single image, else a folder; "" for none
  std::function<void(const std::string&)> line;  // one line per frame; empty for none
  // The files the frames come from (an image or a folder's images; null for a video): no drawing
  // may replace one, nor the JSON a drawing, which the constructor checks before any frame.
  const std::vector<std::string>* inputs = nullptr;
};

// True when the drawings of `source` go into the folder `draw` (a folder, a video, or a single
// image with a --draw that is not an image file), false when `draw` is the one drawing's file.
bool draws_to_folder(const std::string& source, const std::string& draw);

class FrameOutputs {
 public:
  // Checks the outputs and creates nothing: throws when --draw names an image file but the source
  // has several frames, or when a drawing would replace an input or the JSON a drawing.
  explicit FrameOutputs(FrameOutputOptions opt);
  ~FrameOutputs();

  // Starts the JSON (and the folders it needs): before the first write().
  void open();

  // One finished frame (after decode): its line, its JSON entry and its drawing.
  void write(const FrameWork& w, const YoloLayout& layout);
  // Commits the JSON: one object for a single image file, else an array of the frames written.
  void finish();
  size_t frames() const { return frames_; }
  size_t detections() const { return detections_; }

 private:
  std::string draw_path(const std::string& frame_name) const;
  void check_outputs() const;

  FrameOutputOptions opt_;
  bool single_image_ = false;
  std::unique_ptr<AtomicFile> json_;
  size_t frames_ = 0, detections_ = 0;
};

}  // namespace edgeq
