// Running a model: tensors in and out, or images in and YOLO detections out (letterboxed as
// Ultralytics does, decoded, NMS, in the image's own pixels). A QDQ model runs its exact QDQ
// formula ("simulate") or on integer kernels ("int8").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeq/exec_options.h"
#include "edgeq/images.h"
#include "edgeq/model.h"

namespace edgeq {

struct SessionOptions {
  ExecOptions exec;    // exec, emulate, threads
  float conf = 0.25f;  // keep detections scoring above
  float iou = 0.7f;    // NMS drops same-class boxes overlapping more
  int max_det = 300;
};

// A float32 tensor: its values in row-major order.
struct TensorData {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// One call at a time per Session (calls from several threads wait for each other); use one
// Session per thread to run in parallel.
class Session {
 public:
  struct Keypoint {
    float x = 0, y = 0, conf = 0;  // image pixels; conf: the model's visibility score
  };
  struct Detection {
    float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // image pixels
    float score = 0;
    int cls = 0;
    std::vector<Keypoint> keypoints;  // empty for a detect model
  };

  // Plans the model; throws edgeq::Error for an unsupported op (naming the node and op) or options
  // out of range.
  explicit Session(const Model& model, const SessionOptions& options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Detections, highest score first. The model needs one image input and a YOLO head output.
  std::vector<Detection> predict(const ImageFrame& frame);
  std::vector<Detection> predict(const std::string& image_path);
  // Float32 inputs by name -> every graph output (and a raw head's output0 from the host decode).
  std::vector<TensorData> run(const std::vector<TensorData>& inputs);
  // What the planner chose to tell (e.g. int8 convolutions run on split weights).
  std::vector<std::string> notices();
  // Keypoints per detection: 17 for YOLO11-pose, 0 for a detect model.
  int keypoints() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgeq
