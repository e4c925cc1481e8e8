// The n-vs-s study: for every (model, arm, scheme) cut the model into its arm, calibrate (once per
// model), quantize, compare against the arm's own FP32, doctor and latency; every step cached in
// OUT/cache under a key of what it reads, then OUT/data.json (data/study.schema.json) and the
// self-contained OUT/index.html. What `edgeq study` runs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "edgeq/progress.h"

namespace edgeq {

struct StudyConfig {
  std::vector<std::string> models;  // FP32 ONNX files (named by file name)
  std::string images;               // calibration images (folder, list file or image)
  std::string test;                 // test images: compare, thumbnails, probes
  std::string labels;               // YOLO labels of the test images ("": labels/ beside images/)
  std::string probe_labels;         // CSV image -> class or value: task probes on arm A
  std::string val;                  // the mixed-precision search's images ("": `images`)
  // "w8a16", "w8a8", or "w8a8-autoP" (W8A8 with the mixed-precision search, P % at 16 bit).
  std::vector<std::string> schemes{"w8a16", "w8a8"};
  std::vector<std::string> arms{"A", "B", "C"};
  std::string target = "qnn-htp";  // doctor's op table: qnn-htp | rknn | cpu | openvino
  std::string placement = "auto";  // auto: qnn for qnn-htp, cpu for cpu/openvino, else ort
  std::string range = "minmax";    // minmax | percentile | entropy | mse
  std::string out;                 // folder for data.json, index.html and cache/
  size_t calib_n = 128;            // calibration images sampled
  uint64_t seed = 0;               // calibration sampling seed
  int histogram_stride = 64;
  int test_n = 0;      // test images used (0: all)
  int auto_n = 8;      // the search's images
  int bench_runs = 5;  // timed runs per latency (after bench_warmup)
  int bench_warmup = 1;
  int threads = 0;     // 0: all cores
  int thumbnails = 6;  // test images drawn in the report
  int probe_folds = 4;
  double probe_l2 = 0.1;
  // Weight repair as `quantize` with images runs it (GPTQ under W8A16), on the calibration
  // sample (calib_n, seed).
  bool weight_repair = false;
  // Each finished step as a kMessage line of task "study" ("[3/12] yolo11n-pose arm A ...: 1.2s
  // elapsed ..., ETA ..."), a kStep before each step, the search's and weight repair's own events,
  // warnings (an unreadable image, a corrupt cache entry). Returning false stops the study
  // (edgeq::Cancelled); the steps already cached stay, so the same call goes on from there. Not
  // part of the configuration (not in its JSON form).
  ProgressCallback progress;
};

struct StudyResult {
  std::string out;        // the folder holding data.json, index.html and cache/
  std::string data_json;  // what OUT/data.json holds
  // The study's numbers as the regression ledger records them (kind "study", edgeq/ledger.h):
  // counts, the worst detection match / mAP / pixel errors over the runs, each run's headline.
  std::string ledger_json;
  size_t runs = 0;  // (model, arm, scheme) runs reported
  size_t steps = 0, cached = 0;
  double seconds = 0;
};

// The JSON form of a configuration (study.json: the fields above by name; "models", "schemes" and
// "arms" take an array or a comma-separated string), read over `base`. Throws edgeq::Error naming
// an unknown key or a wrong type.
StudyConfig study_config_from_json(const std::string& json_text, StudyConfig base = {});
std::string study_config_to_json(const StudyConfig& config);

// Checks the configuration (files exist, schemes, arms, numbers), runs the study and writes
// OUT/data.json and OUT/index.html (atomically). Throws edgeq::Error for a bad configuration or a
// failed step, edgeq::Cancelled when the progress callback answers false.
StudyResult study(const StudyConfig& config);

}  // namespace edgeq
