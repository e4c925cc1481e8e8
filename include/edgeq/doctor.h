// What a quantized (or float) model will get wrong on a target, most severe first: truncated
// encodings (and the pixel where YOLO boxes pin), concat spans, float tails, ops the target cannot
// run quantized, int8 pairs that saturate; optionally each value's sensitivity and a
// mixed-precision set. What `edgeq doctor` runs and prints.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edgeq/calibrate.h"
#include "edgeq/choices.h"
#include "edgeq/images.h"
#include "edgeq/model.h"
#include "edgeq/progress.h"

namespace edgeq {

struct DoctorOptions {
  // "qnn-htp" | "rknn" | "cpu" | "cpu-avx2" (x86 without VNNI) | "openvino", or an op table .json
  std::string target = "cpu";
  std::string encodings_file;  // judge these encodings (AIMET/QNN JSON) instead of the Q/DQ
  // FP32 statistics of the model's float view; without them and with images, the float view is
  // calibrated on max_images of them (as calibrate() samples).
  std::shared_ptr<const CalibrationStats> stats;
  // Images: calibration without stats, the int8-pair run on targets that pair products, and the
  // sensitivity ranking.
  std::shared_ptr<const ImageSource> images;
  size_t max_images = 8;    // images calibrated and run for int8 pairs
  size_t sensitivity = 0;   // rank values by output error on this many images (0: off)
  double top_percent = 10;  // share of values the sensitivity's mixed set keeps at 16 bit
  size_t max_info = 15;     // info findings in DoctorReport::text (all are in the data)
  // DoctorReport::text lists every finding, one a line (info ones still capped by max_info);
  // false: findings grouped by severity and kind, with counts and each group's costliest few.
  bool all = false;
  ProgressCallback progress;  // kStep per image ("calibrate"), per value ("sensitivity"); kMessage
};

struct DoctorFinding {
  Severity severity = Severity::kInfo;  // name(): "error" | "warning" | "info"
  std::string kind;     // "truncation", "concat-span", "float-tail", "placement", "range", ...
  std::string value;    // the value at fault ("" when it is about a node)
  std::string node;     // the node at fault ("" when it is about a value)
  std::string message;  // one line
  std::map<std::string, double> numbers;
};

struct SensitivityRow {
  std::string value;  // the value, or the block's name
  double loss = 0;    // what the ranking sorts by: the detection loss, else rel_l2
  double rel_l2 = 0, box_px = 0, kpt_px = 0, score = 0, flipped = 0;
};

struct DoctorReport {
  std::string target;
  bool qdq = false;            // the model holds Q/DQ nodes
  std::string encodings_from;  // "model", "file" or "none"
  bool has_stats = false;
  size_t calibrated_images = 0;         // images the float view was calibrated on (0: stats given)
  size_t pair_images = 0;               // images the int8-pair check ran
  std::vector<DoctorFinding> findings;  // most severe first
  // With options.sensitivity: most sensitive first, one value and one block at a time.
  std::vector<SensitivityRow> ranking, blocks;
  std::string measure;  // "detection_loss" or "rel_l2"
  size_t sensitivity_images = 0;
  std::vector<std::string> mixed;  // the values the mixed set keeps at 16 bit
  std::string text;                // the terminal report (`edgeq doctor` prints it)
  size_t hidden = 0;               // findings the text leaves out (options.all shows them)
  std::string json;                // everything, as `edgeq doctor --json` writes it
};

// Throws edgeq::Error for an unknown target, unreadable encodings or statistics of another
// model; edgeq::Cancelled when the progress callback returns false.
DoctorReport doctor(const Model& model, const DoctorOptions& options = {});

}  // namespace edgeq
