// A calibration run over many images: several images at once, one Calibrator per worker thread.
//
// Calibration is a batch job, so it is run for throughput: each worker calibrates whole images
// on its own threads (one each, by default), with its own executor and statistics, taking the
// next image from a shared counter; the workers' statistics are merged at the end. Merging is
// exact (see Histogram), so the result does not depend on the number of workers or on which
// worker took which image. A worker with one thread has no serial sections that leave other
// threads waiting (the statistics' set-up between kernels, binning after each pass), and each
// worker reads its next image between its own passes.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "calib/calibration_images.h"
#include "calib/calibrator.h"
#include "calib/stats.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

struct CalibrationRunOptions {
  CalibratorOptions calibrator;  // calibrator.executor.threads: threads of each worker
  int workers = 1;               // images calibrated at once
};

// Reads and preprocesses image i for the model input. An edgeq::Error means the image is
// unreadable: it is skipped (and reported through on_skip); any other exception ends the run.
using ImageLoader = std::function<Tensor(size_t index)>;

struct CalibrationRun {
  Stats stats;
  size_t used = 0;        // images calibrated
  size_t unreadable = 0;  // images skipped
  double seconds = 0;     // from the first worker ready (planned) to the last image done
  std::vector<std::string> observed, derived;  // as Calibrator reports them
};

// Calibrates images 0 .. count-1 of `load` into model `input`. on_image is called once per image
// (calibrated or skipped), on_skip with the reason for a skipped one; both are called from the
// workers, one call at a time. Throws if no image was readable.
CalibrationRun calibrate_images(const Graph& graph, const std::string& model_sha256,
                                const std::string& preprocessing, const std::string& input,
                                size_t count, const ImageLoader& load,
                                const CalibrationRunOptions& opt,
                                const std::function<void()>& on_image = nullptr,
                                const std::function<void(const std::string&)>& on_skip = nullptr);

// calibrate_images over image files, each read and letterboxed for the model's single image input
// [1,3,H,W] (the preprocessing the stats record): what `edgeq calibrate` runs. OpenCV is set to
// one thread (the workers read images between their own passes).
CalibrationRun calibrate_image_files(
    const Graph& graph, const std::string& model_sha256,
    const std::vector<CalibrationImage>& images, const CalibrationRunOptions& opt,
    const std::function<void()>& on_image = nullptr,
    const std::function<void(const std::string&)>& on_skip = nullptr);

}  // namespace edgeq
