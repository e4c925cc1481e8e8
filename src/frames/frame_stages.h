// One frame on its way through read -> infer -> post, and the three stage functions that move it.
// The serial loop and the threaded pipeline call the same stage functions through the same timed
// steps, so both give the same detections and report the same stage times.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

#include "core/tensor.h"
#include "vision/detection.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {

enum class Stage { kRead = 0, kInfer = 1, kPost = 2 };
constexpr int kStageCount = 3;
const char* stage_name(Stage s);  // "read", "infer", "post"

struct FrameWork {
  size_t seq = 0;  // position in read order
  Frame frame;
  LetterboxInfo letterbox;
  Tensor input;   // the letterboxed model input
  Tensor output;  // the model's detection output
  std::vector<Detection> detections;
  std::chrono::steady_clock::time_point started;  // when its read began
  double stage_ms[kStageCount] = {};
  double end_to_end_ms = 0;  // from the start of its read to the end of its post
};

struct FrameStages {
  std::function<bool(FrameWork&)> read;   // next frame, letterboxed; false at the end
  std::function<void(FrameWork&)> infer;  // input -> output
  std::function<void(FrameWork&)> post;   // decode + NMS, then outputs (line, JSON, drawing)
};

// The timed steps: each runs its stage on `w` and records the time in w.stage_ms.
// read_step also numbers the frame and starts its clock; post_step sets end_to_end_ms.
bool read_step(const FrameStages& s, size_t seq, FrameWork& w);
void infer_step(const FrameStages& s, FrameWork& w);
void post_step(const FrameStages& s, FrameWork& w);

}  // namespace edgeq
