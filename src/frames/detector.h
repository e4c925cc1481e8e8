// The model side of a run over frames: letterbox a frame for the model's image input, run the
// executor, decode the raw YOLO output into detections in original-image pixels. These are the
// per-frame functions the serial loop and the pipeline share.
#pragma once
#include <optional>
#include <string>

#include "frames/frame_stages.h"
#include "runtime/executor.h"
#include "vision/postprocess.h"
#include "vision/yolo_layout.h"

namespace edgeq {

struct DetectorSpec {
  std::string input, output;  // the image input and the raw YOLO output
  int input_h = 640, input_w = 640;
  std::optional<std::string> kpt_shape, names;  // Ultralytics metadata, when present
};

// The model's image input, its size, its YOLO head output and Ultralytics metadata; throws naming
// what is missing.
DetectorSpec detector_spec(const Graph& g);

class Detector {
 public:
  Detector(Executor& executor, DetectorSpec spec, PostprocessOptions post);

  // w.frame -> w.input and w.letterbox.
  void letterbox(FrameWork& w) const;
  // w.input -> w.output (the executor; one frame at a time).
  void infer(FrameWork& w);
  // w.output -> w.detections, highest score first. The first call works out the layout.
  void decode(FrameWork& w);
  // Valid after the first decode.
  const YoloLayout& layout() const;

 private:
  Executor& executor_;
  DetectorSpec spec_;
  PostprocessOptions post_;
  std::optional<YoloLayout> layout_;
};

}  // namespace edgeq
