// Calibration: the FP32 model run over a seeded sample of images (letterboxed as Ultralytics
// does), per-value statistics recorded for quantize(). The statistics depend neither on the
// threads nor on the workers: the same model, images and options give the same bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeq/images.h"
#include "edgeq/model.h"
#include "edgeq/progress.h"

namespace edgeq {

namespace detail {
struct ApiAccess;
struct CalibrationStatsImpl;
}  // namespace detail

class CalibrationStats {
 public:
  // A stats file written by save() or `edgeq calibrate` (CBOR, or JSON for a .json name).
  static CalibrationStats load(const std::string& path);
  // Shards of one sample (CalibrateOptions::shard_*) merged exactly: equal to one pass over all.
  static CalibrationStats merge(const std::vector<CalibrationStats>& shards);
  // Atomic (a temporary file, then a rename); CBOR, or JSON for a name ending in .json.
  void save(const std::string& path) const;

  const std::string& model_sha256() const;   // of the model the statistics were computed for
  const std::string& preprocessing() const;  // "letterbox 640x640 pad 114, RGB, /255, NCHW"
  size_t images() const;                     // images the statistics saw
  size_t values() const;                     // values with statistics

 private:
  friend struct detail::ApiAccess;  // the library's own code reaches the handle's state
  using Impl = detail::CalibrationStatsImpl;
  explicit CalibrationStats(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

struct CalibrateOptions {
  size_t n = 128;     // images sampled (clamped to the number available; none is repeated)
  uint64_t seed = 0;  // sampling seed
  // This call calibrates every shard_count-th sampled image from shard_index (0-based).
  int shard_index = 0, shard_count = 1;
  int threads = 0;  // threads in all (0: all cores)
  // Images calibrated at once, each by a single-threaded executor (0: one per thread, at most
  // 8). The statistics depend on neither.
  int workers = 0;
  // Values of 8192+ elements: the outer ~0.2 % of each tail binned exactly, the rest from one
  // 256-value chunk in up to this many (1: bin every value). In [1, 1024].
  int histogram_stride = 64;
  ProgressCallback progress;  // kStep per image ("calibrate"), kWarning per unreadable image
};

struct Calibration {
  CalibrationStats stats;
  size_t available = 0;   // images the source holds
  size_t sampled = 0;     // images in the seeded sample (before sharding)
  size_t used = 0;        // images calibrated
  size_t unreadable = 0;  // images skipped
  int workers = 0, threads_per_worker = 0;
  double seconds = 0;
  size_t values_read = 0, values_derived = 0;  // read from the run; derived from their inputs
  std::vector<std::string> notes;              // e.g. "n is clamped to the 8 images available"
};

// Throws edgeq::Error for a model without one image input, NaN / Inf weights, options out of
// range, an empty shard, no readable image, or non-finite activations; edgeq::Cancelled when
// the progress callback says so.
Calibration calibrate(const Model& model, const ImageSource& images,
                      const CalibrateOptions& options = {});

}  // namespace edgeq
