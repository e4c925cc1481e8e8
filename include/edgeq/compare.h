// Compare a test model (e.g. quantized) with its reference (FP32) on the same images, at three
// levels: each graph output's tensors, detections after NMS matched one-to-one, and with labels
// box / pose mAP for both. What `edgeq compare` runs and prints.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "edgeq/exec_options.h"
#include "edgeq/model.h"
#include "edgeq/progress.h"

namespace edgeq {

struct CompareOptions {
  std::string labels;       // YOLO txt labels folder; "" = labels/ beside images/ if there
  size_t n = 0;             // the first n images (sorted by path); 0: all
  float conf = 0.25f;       // detections compared above this score
  float iou = 0.7f;         // NMS IoU
  float map_conf = 0.001f;  // detections scored for mAP (as Ultralytics val)
  ExecOptions exec;         // how the test model runs (exec, emulate, threads)
  // Another engine as the test: each image's preprocessed input written as save_inputs/<k>.npy
  // (k: the image's index from 0), and with test_outputs the test model's outputs read from
  // test_outputs/<k>/<output>.npy ('/', '\\' and ':' in names as '_') instead of running it
  // (tools/ort/ort_run.js writes that layout).
  std::string save_inputs, test_outputs;
  // The detections of the first this many images (boxes, scores, classes and the matched pairs)
  // kept in the report's JSON as "per_image"; 0: none.
  size_t keep_detections = 0;
  ProgressCallback progress;  // kStep per image ("compare"), kMessage for notices
};

struct CompareReport {
  size_t images = 0;
  struct Moments {
    double mean = 0, var = 0, min = 0, max = 0;
  };
  struct Output {
    std::string name;
    double rel_l2 = 0, cosine = 1, max_abs = 0;
    // The board check (options.test_outputs): per channel (axis 1), over all images, the
    // reference's and the test's moments, and the first block of consecutive channels that
    // diverges (mean moved by more than a quarter of the reference's standard deviation, or the
    // standard deviation outside half to twice the reference's); -1 when none does. Empty / -1
    // when the test model ran here.
    std::vector<Moments> ref_channels, test_channels;
    int diverging_first = -1, diverging_last = -1;
  };
  // Every graph output; where one model is a raw head (cut_model, arm head), the outputs both
  // runs give (output0 from the host decode).
  std::vector<Output> outputs;
  bool detections = false;  // the models have a YOLO head output (the fields below apply)
  bool pose = false;
  int64_t ref_detections = 0, test_detections = 0, matched = 0, extra = 0, missing = 0;
  // matched / reference detections; none (Python None, JSON null) when neither model detected
  // anything: there was nothing to match, which is no 100 %.
  std::optional<double> match_rate;
  double box_px = 0, kpt_px = 0;  // mean corner / keypoint distance of matched pairs, pixels
  double score_abs = 0, score_bias = 0;
  bool labelled = false;  // mAP below was computed
  double ref_box_map50_95 = 0, test_box_map50_95 = 0, ref_pose_map50_95 = 0, test_pose_map50_95 = 0;
  std::string json;  // the whole report, as `edgeq compare --json` writes it
  std::string text;  // the tables `edgeq compare` prints
};

// `images`: a folder (recursive) or one image. Throws edgeq::Error when the models' inputs or
// outputs differ, an image cannot be read, or labels do not parse; edgeq::Cancelled when the
// progress callback returns false.
CompareReport compare(const Model& reference, const Model& test, const std::string& images,
                      const CompareOptions& options = {});

}  // namespace edgeq
