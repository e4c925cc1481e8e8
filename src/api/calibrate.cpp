// calibrate(): the seeded sample, its shard, the workers, the statistics; and CalibrationStats.
#include "edgeq/calibrate.h"

#include <omp.h>

#include <algorithm>
#include <opencv2/core.hpp>

#include "api/api_impl.h"
#include "calib/calibration_run.h"
#include "calib/finite_checks.h"
#include "core/error.h"
#include "core/option_range.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

// Workers (images at once), each running its forwards on one thread: oneDNN may sum a convolution
// in another order when more threads split it (yolo11n-pose's stride-32 keypoint conv does at 3
// threads), and statistics must not depend on threads. By default one worker per core, at most
// kMaxAutoWorkers (each holds its own executor and statistics, some tens of MiB).
constexpr int kMaxAutoWorkers = 8;

void check_options(const CalibrateOptions& o) {
  check_option("n", o.n, ranges::kImages);
  check_option("shard_count", o.shard_count, ranges::kShards);
  EDGEQ_CHECK(o.shard_index >= 0 && o.shard_index < o.shard_count, "calibrate: shard ",
              o.shard_index, "/", o.shard_count, " is not a shard (0 <= index < count)");
  check_option("threads", o.threads, ranges::threads());
  check_option("workers", o.workers, ranges::workers_or_auto());
  check_option("histogram_stride", o.histogram_stride, ranges::kHistogramStride);
}

}  // namespace

CalibrationStats make_stats(Stats stats, std::string source) {
  auto impl = std::make_shared<detail::CalibrationStatsImpl>();
  impl->stats = std::move(stats);
  impl->source = std::move(source);
  return detail::ApiAccess::make<CalibrationStats>(std::move(impl));
}

CalibrationStats CalibrationStats::load(const std::string& path) {
  return make_stats(load_stats(path), path);
}

CalibrationStats CalibrationStats::merge(const std::vector<CalibrationStats>& shards) {
  EDGEQ_CHECK(!shards.empty(), "merging statistics needs at least one");
  auto name = [&](size_t i) {
    return "stats " + std::to_string(i + 1) + " (" + impl_of(shards[i]).source + ")";
  };
  for (size_t i = 0; i < shards.size(); ++i)
    EDGEQ_CHECK(impl_of(shards[i]).stats.sample, "cannot merge ", name(i),
                ": it records no sample (seed, n, shard, images), so images counted twice would "
                "go unnoticed; it was written by an edgeq before stats version 3: calibrate again");
  Stats out = impl_of(shards[0]).stats;
  for (size_t i = 1; i < shards.size(); ++i) {
    try {
      merge_into(out, impl_of(shards[i]).stats);
    } catch (const Error& e) {
      fail(name(i), " into ", i > 1 ? "stats 1.." + std::to_string(i) : name(0), ": ", e.what());
    }
  }
  return make_stats(std::move(out), "merged statistics");
}

void CalibrationStats::save(const std::string& path) const {
  save_stats(impl_->stats, path);
}
const std::string& CalibrationStats::model_sha256() const {
  return impl_->stats.model_sha256;
}
const std::string& CalibrationStats::preprocessing() const {
  return impl_->stats.preprocessing;
}
size_t CalibrationStats::images() const {
  return static_cast<size_t>(impl_->stats.images);
}
size_t CalibrationStats::values() const {
  return impl_->stats.values.size();
}

Calibration calibrate(const Model& model, const ImageSource& images, const CalibrateOptions& o) {
  check_options(o);
  const Graph& g = impl_of(model).graph;
  const ValueInfo& input = yolo_image_input(g);  // before any image is read
  check_finite_weights(g, model.name());
  const int h = yolo_input_height(g), w = yolo_input_width(g);

  const detail::ImageSourceImpl& src = impl_of(images);
  std::vector<CalibrationImage> sample = src.sample(o.n, o.seed);
  std::vector<CalibrationImage> mine = shard_images(sample, {o.shard_index, o.shard_count});
  ProgressReporter progress(o.progress);
  std::vector<std::string> notes;
  if (src.entries.size() < o.n) {
    notes.push_back(src.spec + " holds " + std::to_string(src.entries.size()) +
                    " images; using all of them (n " + std::to_string(o.n) +
                    " is clamped, images are not repeated)");
    progress.message("calibrate", notes.back());
  }
  EDGEQ_CHECK(!mine.empty(), "shard ", o.shard_index, "/", o.shard_count, " of ", sample.size(),
              " sampled images is empty");

  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  int workers = o.workers > 0 ? o.workers : std::min(threads, kMaxAutoWorkers);
  workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(workers), mine.size()));
  CalibrationRunOptions opt;
  opt.workers = workers;
  opt.calibrator.executor.threads = 1;
  opt.calibrator.histogram_stride = o.histogram_stride;
  size_t done = 0;
  progress.step("calibrate", 0, mine.size());
  cv::setNumThreads(0);  // the workers read images between their own passes
  std::vector<std::string> digests(mine.size());  // of the images calibrated; each i by one worker
  CalibrationRun run = calibrate_images(
      g, model.sha256(), letterbox_preprocessing(h, w), input.name, mine.size(),
      [&](size_t i) {
        const cv::Mat bgr = src.read(mine[i]);
        Tensor x = preprocess_image(bgr, h, w, nullptr);
        digests[i] = detail::ImageSourceImpl::digest(bgr);
        return x;
      },
      opt, [&] { progress.step("calibrate", ++done, mine.size()); },
      [&](const std::string& why) {
        progress.warning("calibrate", "skipping unreadable image: " + why);
      });
  check_finite_activations(g, run.stats);
  StatsSample seen;
  seen.seed = o.seed;
  seen.n = o.n;
  seen.shard_count = o.shard_count;
  seen.shards = {o.shard_index};
  for (std::string& d : digests)
    if (!d.empty()) seen.images.push_back(std::move(d));
  normalize_sample(seen);
  run.stats.sample = std::move(seen);

  Calibration c{make_stats(std::move(run.stats), "calibration"),
                src.entries.size(),
                sample.size(),
                run.used,
                run.unreadable,
                workers,
                opt.calibrator.executor.threads,
                run.seconds,
                run.observed.size(),
                run.derived.size(),
                std::move(notes)};
  return c;
}

}  // namespace edgeq
