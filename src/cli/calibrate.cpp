// edgeq calibrate: run a model in FP32 over a deterministic sample of images (letterboxed as
// `infer --image` does) and write per-value statistics for `edgeq quantize`.
#include <chrono>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "cli/commands.h"
#include "cli/model_input.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/process_stats.h"
#include "core/progress.h"
#include "core/sha256.h"
#include "ir/onnx_io.h"
#include "quant/calibration_images.h"
#include "quant/calibrator.h"
#include "quant/finite_checks.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq::cli {
namespace {

struct CalibrateArgs {
  std::string model, images, out, json, shard = "0/1";
  size_t n = 128;
  uint64_t seed = 0;
  int threads = 0;
  int histogram_stride = CalibratorOptions().histogram_stride;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_calibrate(const CalibrateArgs& a) {
  const std::string bytes = read_file(a.model);
  Graph g = parse_onnx(bytes, a.model);
  const ValueInfo& in = image_input(g);
  const int h = static_cast<int>(in.shape[2]), w = static_cast<int>(in.shape[3]);
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

  CalibratorOptions opt;
  opt.executor.threads = a.threads;
  opt.histogram_stride = a.histogram_stride;
  const std::string input_name = in.name;
  Calibrator cal(std::move(g), sha256_hex(bytes), letterbox_preprocessing(h, w), opt);
  Progress progress("calibrate", mine.size());
  // The next image is read and letterboxed on one thread while the others bin the statistics of
  // the image just run (Calibrator::add's `alongside`). A reader thread running beside the
  // forward pass instead would preempt one of its threads and stall the others at the next
  // barrier: measured on 2 cores, that cost twice the reading time. OpenCV runs single-threaded.
  cv::setNumThreads(0);
  struct Loaded {
    Tensor x;
    std::string error;  // unreadable image
  };
  auto load = [&](size_t i) {
    Loaded l;
    try {
      l.x = preprocess_image(read_image(mine[i].path), h, w, nullptr);
    } catch (const Error& e) {
      l.error = e.what();
    }
    return l;
  };
  auto t0 = std::chrono::steady_clock::now();
  Loaded next = load(0);
  double t_wait = seconds_since(t0), t_run = 0;
  size_t used = 0, unreadable = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    Loaded cur = std::move(next);
    std::function<void()> read_next;
    if (i + 1 < mine.size()) read_next = [&] { next = load(i + 1); };
    if (!cur.error.empty()) {
      if (unreadable++ == 0) progress.finish();
      std::cerr << "skipping unreadable image: " << cur.error << "\n";
      progress.step();
      t0 = std::chrono::steady_clock::now();
      if (read_next) read_next();
      t_wait += seconds_since(t0);
      continue;
    }
    t0 = std::chrono::steady_clock::now();
    cal.add({{input_name, cur.x}}, read_next);
    t_run += seconds_since(t0);
    ++used;
    progress.step();
  }
  progress.finish();
  EDGEQ_CHECK(used > 0, "no readable image among the ", mine.size(), " selected from '", a.images,
              "'; nothing written");
  Stats stats = cal.take();
  check_finite_activations(parse_onnx(bytes, a.model), stats);
  save_stats(stats, a.out);
  std::printf(
      "calibrated %zu images (shard %s of %zu sampled, seed %llu) in %s: %.1f ms/image "
      "(reading outside the forward passes %.1f, forward + statistics + reading the next image "
      "%.1f)\n",
      used, a.shard.c_str(), sample.size(), static_cast<unsigned long long>(a.seed),
      format_duration(progress.elapsed_s()).c_str(), 1e3 * (t_wait + t_run) / used,
      1e3 * t_wait / used, 1e3 * t_run / used);
  if (!a.json.empty()) {
    nlohmann::json j = {{"model", a.model},
                        {"images", used},
                        {"threads", a.threads},
                        {"histogram_stride", a.histogram_stride},
                        {"seconds", progress.elapsed_s()},
                        {"image_wait_ms_per_image", 1e3 * t_wait / used},
                        {"forward_statistics_ms_per_image", 1e3 * t_run / used},
                        {"values", stats.values.size()},
                        {"values_read", cal.observed().size()},
                        {"values_derived", cal.derived().size()},
                        {"peak_rss_bytes", peak_rss_bytes()}};
    write_file_atomic(a.json, j.dump(2) + "\n");
  }
  std::printf(
      "%zu values: %zu read, %zu derived from their inputs; histograms bin %s; peak RSS "
      "%.1f MiB\nwrote %s\n",
      stats.values.size(), cal.observed().size(), cal.derived().size(),
      a.histogram_stride > 1 ? ("exact tails and 1 chunk in up to " +
                                std::to_string(a.histogram_stride) + " of large values")
                                   .c_str()
                             : "every value",
      peak_rss_bytes() / 1048576.0, a.out.c_str());
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
  cmd->add_option("--threads", a->threads, "threads (0: all cores)");
  cmd->add_option("--histogram-stride", a->histogram_stride,
                  "histogram sampling for values of 8192+ elements: the outer ~0.2% of each "
                  "tail binned exactly, the rest from one 256-value chunk in up to this many "
                  "(1: bin every value; min, max and counts always see all)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "stats file to write (CBOR; .json for JSON)")->required();
  cmd->add_option("--json", a->json, "also write timings and counts as JSON");
  cmd->callback([a] { run_calibrate(*a); });
}

}  // namespace edgeq::cli
