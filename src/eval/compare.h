// compare: a test model (e.g. quantized) against its reference (FP32) on the same letterboxed
// images, at three levels (docs/lessons.md, lesson 6):
//   tensors     per graph output (taps included): relative L2, cosine, max |diff|;
//   detections  after NMS, test matched one-to-one to reference at IoU >= 0.5: match rate,
//               extra, missing, box / keypoint px error, score shift (original-image pixels);
//   task        with labels: box mAP50, mAP50-95 and pose OKS mAP for both models.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "eval/channel_stats.h"
#include "eval/detection_diff.h"
#include "eval/task_metrics.h"
#include "eval/tensor_error.h"
#include "runtime/executor.h"
#include "vision/postprocess.h"

namespace edgeq {

struct CompareRunOptions {
  std::string ref_model, test_model;
  std::string images;       // folder (recursive) or one image file
  std::string labels;       // "" = Ultralytics layout when present
  int max_images = 0;       // 0 = all
  PostprocessOptions post;  // detections compared at conf 0.25, NMS IoU 0.7
  float map_conf = 0.001f;  // detections scored for mAP, as Ultralytics val (conf 0.001)
  float match_iou = 0.5f;
  int threads = 0;
  ExecMode exec = ExecMode::kSimulate;  // how the test model runs (the reference always floats)
  Int8Emulation emulate = Int8Emulation::kNone;  // exec int8: whose arithmetic it reproduces
  // Keep each image's detections (CompareResult::per_image) for the first this many images.
  int keep_detections = 0;
  // Another engine as the test: each image's input, preprocessed, is written as
  // save_inputs/<k>.npy (k: the image's index from 0), and with test_outputs the test model's
  // outputs are read from test_outputs/<k>/<output>.npy ('/', '\\' and ':' in names as '_')
  // instead of running it (tools/ort/ort_run.js writes that layout).
  std::string save_inputs, test_outputs;
};

// One image's detections after NMS (original-image pixels), reference and test.
struct ImageDetections {
  std::string path;
  int width = 0, height = 0;
  std::vector<Detection> ref, test;
};

struct OutputError {
  std::string name;
  Shape shape;
  TensorError error;
  // The board check (test outputs read from files): per channel (axis 1) over all images, the
  // reference's and the test's moments and the first block of channels that diverges. Empty when
  // the test model ran here, or for an output of rank < 2.
  std::vector<ChannelMoments> ref_channels, test_channels;
  ChannelBlock diverging;
};

struct CompareResult {
  CompareRunOptions options;
  int64_t images = 0;
  std::vector<OutputError> outputs;
  bool has_detections = false;  // the models have a YOLO head output
  std::string detection_output;
  bool pose = false;
  DetectionDiff detections;
  bool has_labels = false;
  std::string labels_from;
  std::string labels_unmatched;  // LabelSource::unmatched
  TaskMetrics ref_metrics, test_metrics;
  std::vector<ImageDetections> per_image;  // CompareRunOptions::keep_detections
};

// The outputs compared: all of them, which must be the same in both models (names and shapes);
// where a model is a raw head (ir/raw_head.h), the outputs both runs give (output0 from the host
// decode against the full model's). Throws one line when they differ or none is common.
std::vector<ValueInfo> compared_outputs(const Graph& ref, const Graph& test);

// Runs the comparison of opt.ref_model and opt.test_model; writes one progress line per image
// to `progress` when not null.
CompareResult run_compare(const CompareRunOptions& opt, std::ostream* progress);

// What a comparison tells as it goes: notices and warnings, and one line per image (`done` of
// `total`). Either may throw to stop it.
struct CompareHooks {
  std::function<void(const std::string& line)> note;
  std::function<void(size_t done, size_t total, const std::string& line)> image;
};
// The same on models already loaded (opt.ref_model / test_model are not read).
CompareResult run_compare(Graph ref, Graph test, const CompareRunOptions& opt,
                          const CompareHooks& hooks);

}  // namespace edgeq
