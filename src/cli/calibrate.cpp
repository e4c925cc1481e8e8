// edgeq calibrate: run a model in FP32 over a deterministic sample of images (letterboxed as
// `infer --image` does) and write per-value statistics for `edgeq quantize`.
#include <omp.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "cli/model_input.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/process_stats.h"
#include "core/progress.h"
#include "core/sha256.h"
#include "ir/onnx_io.h"
#include "quant/calibration_images.h"
#include "quant/calibration_run.h"
#include "quant/finite_checks.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {
namespace {

struct CalibrateArgs {
  std::string model, images, out, json, shard = "0/1";
  size_t n = 128;
  uint64_t seed = 0;
  int threads = 0, workers = 0;
  int histogram_stride = CalibratorOptions().histogram_stride;
  LedgerArgs ledger;
};

// Workers (images at once), each running its forwards on one thread: oneDNN may sum a convolution
// in another order when more threads split it (yolo11n-pose's stride-32 keypoint conv does at 3
// threads), and statistics must not depend on threads. By default one worker per core, at most
// kMaxAutoWorkers (each holds its own executor and statistics, some tens of MiB).
constexpr int kMaxAutoWorkers = 8;

void run_calibrate(const CalibrateArgs& a) {
  check_distinct_files({{"--model", a.model}, {"--images", a.images}},
                       {{"--out", a.out}, {"--json", a.json}});
  LedgerRecorder ledger(a.ledger);
  const std::string bytes = read_file(a.model);
  Graph g = parse_onnx(bytes, a.model);
  yolo_image_input(g);  // a model without one image input fails before any image is read
  check_finite_weights(g, a.model);

  Shard shard = parse_shard(a.shard);
  auto listed = list_calibration_images(a.images);
  const size_t available = listed.size();
  auto sample = sample_calibration_images(std::move(listed), a.n, a.seed);
  auto mine = shard_images(sample, shard);
  if (available < a.n)
    std::cerr << "note: " << a.images << " holds " << available
              << " images; using all of them (--n " << a.n
              << " is clamped, images are not repeated)\n";
  EDGEQ_CHECK(!mine.empty(), "shard ", a.shard, " of ", sample.size(), " sampled images is empty");

  const int threads = a.threads > 0 ? a.threads : omp_get_max_threads();
  int workers = a.workers > 0 ? a.workers : std::min(threads, kMaxAutoWorkers);
  workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(workers), mine.size()));
  CalibrationRunOptions opt;
  opt.workers = workers;
  opt.calibrator.executor.threads = 1;
  opt.calibrator.histogram_stride = a.histogram_stride;
  Progress progress("calibrate", mine.size());
  bool skipped_any = false;
  CalibrationRun run = calibrate_image_files(
      g, sha256_hex(bytes), mine, opt, [&] { progress.step(); },
      [&](const std::string& why) {
        if (!skipped_any) progress.finish();
        skipped_any = true;
        std::cerr << "skipping unreadable image: " << why << "\n";
      });
  progress.finish();
  Stats& stats = run.stats;
  check_finite_activations(parse_onnx(bytes, a.model), stats);
  save_stats(stats, a.out);
  const double ms_per_image = 1e3 * run.seconds / run.used;
  std::printf(
      "calibrated %zu images (shard %s of %zu sampled, seed %llu) in %s: %.1f ms/image, %d "
      "worker%s x %d thread%s\n",
      run.used, a.shard.c_str(), sample.size(), static_cast<unsigned long long>(a.seed),
      format_duration(run.seconds).c_str(), ms_per_image, workers, workers == 1 ? "" : "s",
      opt.calibrator.executor.threads, opt.calibrator.executor.threads == 1 ? "" : "s");
  const nlohmann::json report = {{"model", a.model},
                                 {"images", run.used},
                                 {"unreadable", run.unreadable},
                                 {"workers", workers},
                                 {"threads_per_worker", opt.calibrator.executor.threads},
                                 {"histogram_stride", a.histogram_stride},
                                 {"seconds", run.seconds},
                                 {"ms_per_image", ms_per_image},
                                 {"values", stats.values.size()},
                                 {"values_read", run.observed.size()},
                                 {"values_derived", run.derived.size()},
                                 {"peak_rss_bytes", peak_rss_bytes()}};
  if (!a.json.empty()) write_file_atomic(a.json, report.dump(2) + "\n");
  std::printf(
      "%zu values: %zu read, %zu derived from their inputs; histograms bin %s; peak RSS "
      "%.1f MiB\nwrote %s\n",
      stats.values.size(), run.observed.size(), run.derived.size(),
      a.histogram_stride > 1 ? ("exact tails and 1 chunk in up to " +
                                std::to_string(a.histogram_stride) + " of large values")
                                   .c_str()
                             : "every value",
      peak_rss_bytes() / 1048576.0, a.out.c_str());
  ledger.record("calibrate", report, a.model, a.out);
}

}  // namespace

void register_calibrate(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Run the FP32 model over sampled images and write per-value statistics");
  cmd->add_option("--model", a->model, "FP32 ONNX model")->required();
  cmd->add_option("--images", a->images,
                  "image folder (sub-folders are sampled round robin), one image, or a text list")
      ->required();
  cmd->add_option("--n", a->n, "images to sample (clamped to the number available)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "sampling seed")->capture_default_str();
  cmd->add_option("--shard", a->shard, "i/N: calibrate every N-th sampled image from i")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "threads in all (0: all cores)");
  cmd->add_option("--workers", a->workers,
                  "images calibrated at once, each by its own single-threaded executor (0: one "
                  "per thread, at most 8); the statistics depend neither on it nor on --threads")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--histogram-stride", a->histogram_stride,
                  "histogram sampling for values of 8192+ elements: the outer ~0.2% of each "
                  "tail binned exactly, the rest from one 256-value chunk in up to this many "
                  "(1: bin every value; min, max and counts always see all)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "stats file to write (CBOR; .json for JSON)")->required();
  cmd->add_option("--json", a->json, "also write timings and counts as JSON");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] { run_calibrate(*a); });
}

}  // namespace edgeq::cli
