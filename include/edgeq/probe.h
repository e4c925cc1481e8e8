// Task probes: how much of a task a model's features still carry after quantization. The model is
// typically arm A of a cut (its outputs are pooled taps); each image, letterboxed for its input,
// gives one row of features (the outputs flattened in order). A linear probe (logistic regression
// for classes, ridge for values) on standardized features, k-fold cross-validated, is read three
// ways as the field does:
//   fp32       trained and tested on FP32 features;
//   frozen     the same FP32-trained probe (and standardization) tested on quantized features;
//   retrained  trained and tested on quantized features.
// Score: accuracy (classes) or R^2 (values), pooled over every held-out prediction.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "edgeq/progress.h"

namespace edgeq {

enum class ProbeTask { kClassify, kRegress };

// A CSV of image -> label ("image,label" per line; a first line "image,label" is a header,
// '#' starts a comment). Task "auto": values when some label is a non-integer number, else
// classes (names or integers, in sorted order).
struct ProbeLabels {
  ProbeTask task = ProbeTask::kClassify;
  std::vector<std::string> images;       // as written
  std::vector<int> classes;              // per row (classify)
  std::vector<std::string> class_names;  // index -> name
  std::vector<double> values;            // per row (regress)
};

struct ProbeOptions {
  int folds = 4;
  double l2 = 0.1;  // penalty on standardized features
};

struct ProbeReading {
  double score = 0;  // accuracy or R^2
  double mae = 0;    // values: mean absolute error
};

struct ProbeResult {
  ProbeTask task = ProbeTask::kClassify;
  size_t samples = 0, features = 0;
  int folds = 0, classes = 0;
  double chance = 0;  // classes: the majority class's share
  ProbeReading fp32;
  bool has_quantized = false;
  ProbeReading frozen, retrained;
};

// What a probe reads, checked before any image is run.
struct ProbeSetup {
  std::string model, quantized;     // the FP32 model, and its quantized model ("" for none)
  ProbeLabels labels;               // the rows probed
  std::vector<std::string> images;  // the image of each label row
  size_t listed = 0;                // images found (those without a row are not probed)
};

// Reads the labels CSV (task "auto" | "classify" | "regress"), lists `images` (a folder or one
// image), finds each row's image (the same path, one ending in "/NAME", or the same file name),
// and checks that `folds` fit the rows and that the models have an image input and (where their
// shapes say) at most 65536 features per image, the quantized model as many as the FP32 one.
// Throws one line naming the file and row at fault.
ProbeSetup prepare_probe(const std::string& model, const std::string& quantized,
                         const std::string& images, const std::string& labels_csv,
                         const std::string& task, int folds);

// Runs each model on the setup's images (`progress`: a kStep event per image, task "features of
// MODEL"; false cancels) and reads the probe: fp32, and frozen and retrained with a quantized
// model. `threads`: 0 for all cores. Throws when a model gives more than 65536 features.
ProbeResult probe(const ProbeSetup& setup, const ProbeOptions& opt, int threads = 0,
                  const ProgressCallback& progress = {});

// The readings as JSON (task, score name, samples, features, folds, the readings; classes and
// chance for classes), indented by 2.
std::string probe_json(const ProbeResult& r);

}  // namespace edgeq
