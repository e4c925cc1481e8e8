// Detection (and for pose models keypoints) over an image, a folder of images or a video: each
// frame letterboxed, run, decoded (NMS, original-image pixels); serially, or as a pipeline that
// overlaps reading, inference and decoding in three threads. What `edgeq run` does. For frames
// of your own, one at a time, use Session::predict.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "edgeq/model.h"
#include "edgeq/progress.h"
#include "edgeq/session.h"

namespace edgeq {

struct DetectOptions {
  SessionOptions session;  // exec (inference's exec, emulate, threads), conf, iou, max_det
  std::string json;        // detections JSON: one object for an image file, else an array
  std::string draw;        // drawn images: a file for one image, else a folder ("" for none)
  bool pipeline = false;   // read + letterbox, inference, decode + outputs in three threads
  // With pipeline: kAuto runs the first 4 frames serially, measures their stages and predicts
  // whether threads are faster; the rest runs in windows (about 3 s each), serially or in
  // threads, keeping the mode measured faster and trying the other now and then, so that other
  // work on the machine cannot make the choice a loss for long. The report says what it
  // predicted, each change of mode and the frames each mode ran. kThreads (and drop_late, for
  // live sources) always runs three threads. Inference keeps the threads asked in every mode.
  PipelineMode pipeline_mode = PipelineMode::kAuto;
  size_t queue = 4;  // frames each pipeline queue holds (1 to 4096)
  // Live sources, pipeline only: when inference falls behind, drop the oldest waiting frame
  // instead of making the reader wait.
  bool drop_late = false;
  // One line per finished frame ("name: 2 people | read 3.1 ms, infer 30.2 ms").
  std::function<void(const std::string& line)> on_frame;
  // The planner's notices as kMessage events of task "detect" before the first frame, then a kStep
  // after each finished frame (done: frames so far; total 0: unknown). Answering false stops as
  // `stop` does (no exception: the report says interrupted).
  ProgressCallback progress;
  // Raised (e.g. by a Ctrl-C handler) to stop: the frame in hand is finished and everything that
  // finished is written; the report says interrupted.
  const std::atomic<bool>* stop = nullptr;
};

struct DetectReport {
  size_t frames = 0, detections = 0, skipped = 0, dropped = 0;
  // Frames a video's header declares that it never gave: the file is cut short, or its last
  // frames are corrupt (the two read alike); 0 for images and complete videos.
  size_t missing = 0;
  bool interrupted = false;
  double fps = 0;                    // frames per second, end to end
  std::vector<std::string> notices;  // what the planner chose to tell
  std::string json;                  // the timing report (`edgeq run --report`)
  std::string summary;               // the lines `edgeq run` prints at the end
};

// Whether the drawings of `source` go into the folder `draw` (a folder or a video, or one image
// with a `draw` that is not an image file) rather than `draw` being the one drawing's file.
bool drawings_go_to_folder(const std::string& source, const std::string& draw);
// Whether `relative` (a path below the drawings folder) can be the drawing of a frame of `source`:
// the files that folder receives.
bool is_drawing_name(const std::string& source, const std::string& relative);

// Throws edgeq::Error for an unreadable source (before the model is planned), a model without a
// YOLO head, options out of range, or a source with no readable frame.
DetectReport detect(const Model& model, const std::string& source,
                    const DetectOptions& options = {});

}  // namespace edgeq
