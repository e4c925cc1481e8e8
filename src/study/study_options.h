// What `edgeq study` runs: models, image sets, schemes, arms, target and the knobs of each step,
// from command-line flags or a JSON config with the same keys (study.json).
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace edgeq {

// A scheme of the study: "w8a16", "w8a8", or "w8a8-autoP" (W8A8 with `quantize --auto P`).
struct StudyScheme {
  std::string name;         // as given
  std::string base;         // "w8a8" | "w8a16"
  double auto_percent = 0;  // 0: no mixed-precision search
};
// Throws one line listing the forms for anything else.
StudyScheme parse_study_scheme(const std::string& s);

struct StudyOptions {
  std::vector<std::string> models;  // FP32 ONNX files (Ultralytics export names)
  std::string images;               // calibration images (folder, list file or image)
  std::string test;                 // test images: compare, thumbnails, probes
  std::string labels;               // YOLO labels of the test images ("": labels/ beside images/)
  std::string probe_labels;         // CSV image -> class or value: task probes on arm A
  std::string val;                  // --auto search images ("": the calibration images)
  std::vector<std::string> schemes{"w8a16", "w8a8"};
  std::vector<std::string> arms{"A", "B", "C"};
  std::string target = "qnn-htp";  // doctor's op table
  std::string placement = "auto";  // auto: qnn for qnn-htp, cpu for cpu/openvino, else ort
  std::string range = "minmax";
  std::string out;
  size_t calib_n = 128;
  uint64_t seed = 0;
  int histogram_stride = 64;
  int test_n = 0;      // test images used (0: all)
  int auto_n = 8;      // --auto: search images
  int bench_runs = 5;  // timed runs per latency (after bench_warmup)
  int bench_warmup = 1;
  int threads = 0;     // 0: all cores
  int thumbnails = 6;  // test images drawn in the report
  int probe_folds = 4;
  double probe_l2 = 0.1;
  // Weight repair as `edgeq quantize --images` runs it (GPTQ under W8A16), on the calibration
  // sample (calib_n, seed).
  bool weight_repair = false;
  // Asked between steps and inside weight repair and the search: true stops the study
  // (edgeq::Cancelled); the steps already cached stay, so a rerun goes on from there. Not part
  // of the configuration (not in the JSON form).
  std::function<bool()> stop;
};

// The JSON form (every key optional except where run_study needs it; "models", "schemes" and
// "arms" take an array or a comma-separated string). Throws naming an unknown key or a wrong type.
StudyOptions study_options_from_json(const nlohmann::json& j, StudyOptions base = {});
nlohmann::json study_options_to_json(const StudyOptions& o);
// Checks everything that can be checked before running (files exist, schemes, arms, numbers).
void check_study_options(const StudyOptions& o);
// "qnn" | "cpu" | "ort": the placement `auto` stands for with this target.
std::string study_placement(const StudyOptions& o);

}  // namespace edgeq
