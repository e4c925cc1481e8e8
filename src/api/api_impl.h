// What the public handles (include/edgeq/) hold, for the library's own code: the graph behind a
// Model, the files or frames behind an ImageSource, the Stats behind CalibrationStats, the QDQ
// model behind QuantizedModel; and the progress reporter every long call uses.
#pragma once
#include <opencv2/core.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "calib/calibration_images.h"
#include "calib/stats.h"
#include "core/progress_reporter.h"
#include "edgeq/calibrate.h"
#include "edgeq/images.h"
#include "edgeq/model.h"
#include "edgeq/quantize.h"
#include "encode/qdq_export.h"
#include "ir/graph.h"

namespace edgeq {

namespace detail {

// The one way in to a handle's state (each public handle befriends it).
struct ApiAccess {
  template <class Handle>
  static const auto& impl(const Handle& h) {
    return *h.impl_;
  }
  template <class Handle, class State>
  static Handle make(std::shared_ptr<State> state) {
    return Handle(std::move(state));
  }
};

struct ModelImpl {
  std::string name, bytes, sha256;
  Graph graph;
};

struct ImageSourceImpl {
  std::string spec;
  // Files: `path` and sub-folder `group`. Frames: `path` is the frame's index, group "".
  std::vector<CalibrationImage> entries;
  std::vector<ImageFrame> frames;  // empty for files

  // A seeded, sub-folder-stratified sample of at most n entries (calib/calibration_images.h).
  std::vector<CalibrationImage> sample(size_t n, uint64_t seed) const;
  // Reads an entry as 8-bit BGR; throws edgeq::Error naming the file when it is unreadable.
  cv::Mat read(const CalibrationImage& entry) const;
  // SHA-256 of an image as read (size and BGR pixels): a file and the same photo given as a
  // frame are one image.
  static std::string digest(const cv::Mat& bgr);
  std::string name_of(const CalibrationImage& entry) const;
};

struct CalibrationStatsImpl {
  Stats stats;
  std::string source;  // the file it came from, or "calibration"
};

struct QuantizedModelImpl {
  QdqModel q;
  QuantizeSummary summary;
  RepairReport repair;
  AutoSearchReport search;
  std::vector<std::string> warnings;
  // The options as given, for the summary's JSON (quantize_summary_json).
  Scheme scheme = Scheme::kW8A8;
  QuantizeIo quantize_io = QuantizeIo::kNone;
};

}  // namespace detail

// The state behind a public handle (model, images, statistics, quantized model).
template <class Handle>
const auto& impl_of(const Handle& h) {
  return detail::ApiAccess::impl(h);
}

CalibrationStats make_stats(Stats stats, std::string source);

// What a printer writes (the text a report gives besides its numbers).
template <class Print>
std::string printed(Print&& print) {
  std::ostringstream os;
  print(os);
  return os.str();
}

}  // namespace edgeq
