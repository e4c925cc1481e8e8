#include "frames/detector.h"

#include "core/error.h"
#include "vision/yolo_model.h"

namespace edgeq {

DetectorSpec detector_spec(const Graph& g) {
  DetectorSpec spec;
  spec.input = yolo_image_input(g).name;
  spec.input_h = yolo_input_height(g);
  spec.input_w = yolo_input_width(g);
  spec.output = require_yolo_head_output(g);
  spec.kpt_shape = g.metadata_value("kpt_shape");
  spec.names = g.metadata_value("names");
  return spec;
}

Detector::Detector(Executor& executor, DetectorSpec spec, PostprocessOptions post)
    : executor_(executor), spec_(std::move(spec)), post_(post) {}

void Detector::letterbox(FrameWork& w) const {
  w.input = preprocess_image(w.frame.bgr, spec_.input_h, spec_.input_w, &w.letterbox);
}

void Detector::infer(FrameWork& w) {
  w.output = executor_.run({{spec_.input, w.input}}).at(spec_.output);
  w.input = Tensor();  // the letterboxed copy is not needed any more
}

void Detector::decode(FrameWork& w) {
  if (!layout_) layout_ = resolve_yolo_layout(w.output.shape(), spec_.kpt_shape, spec_.names);
  w.detections = postprocess(w.output, w.letterbox, post_, *layout_);
  w.output = Tensor();
}

const YoloLayout& Detector::layout() const {
  EDGEQ_CHECK(layout_.has_value(), "internal: the YOLO layout is known after the first frame");
  return *layout_;
}

}  // namespace edgeq
