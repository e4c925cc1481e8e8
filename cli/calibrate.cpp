// edgeq calibrate: flags onto edgeq::CalibrateOptions (include/edgeq/calibrate.h), one call to
// edgeq::calibrate, the statistics saved and the run summarized.
#include "edgeq/calibrate.h"

#include "commands.h"
#include "edgeq/calibrate_shard.h"
#include "edgeq/files.h"
#include "edgeq/machine.h"
#include "edgeq/progress_bar.h"
#include "edgeq/report_json.h"
#include "edgeq/text.h"
#include "ledger_options.h"
#include "model_input.h"
#include "number_options.h"
#include "progress_printer.h"

namespace edgeq::cli {
namespace {

struct CalibrateArgs {
  std::string model, images, out, json, shard = "0/1";
  CalibrateOptions options;
  LedgerArgs ledger;
};

void run_calibrate(CalibrateArgs& a) {
  check_distinct_files(
      {{"--model", a.model}, image_input("--images", a.images)},
      {{"--out", a.out}, {"--json", a.json, RoleFile::kText}, ledger_output(a.ledger)});
  LedgerRecorder ledger(a.ledger);
  CalibrateOptions& o = a.options;
  const CalibrationShard shard = parse_calibration_shard(a.shard);
  o.shard_index = shard.index;
  o.shard_count = shard.count;
  ProgressPrinter printer;
  o.progress = printer.callback();
  const Model model = Model::load(a.model);  // a model without an image input fails first
  const Calibration run = calibrate(model, image_source("--images", a.images), o);
  run.stats.save(a.out);
  const double ms_per_image = 1e3 * run.seconds / run.used;
  std::printf(
      "calibrated %zu images (shard %s of %zu sampled, seed %llu) in %s: %.1f ms/image, %d "
      "worker%s x %d thread%s\n",
      run.used, printable(a.shard).c_str(), run.sampled, static_cast<unsigned long long>(o.seed),
      format_duration(run.seconds).c_str(), ms_per_image, run.workers, run.workers == 1 ? "" : "s",
      run.threads_per_worker, run.threads_per_worker == 1 ? "" : "s");
  const std::string report = calibration_json(run, o, a.model, 2);
  if (!a.json.empty()) write_file_atomic(a.json, report + "\n");
  std::printf(
      "%zu values: %zu read, %zu derived from their inputs; histograms bin %s; peak RSS "
      "%.1f MiB\nwrote %s\n",
      run.stats.values(), run.values_read, run.values_derived,
      o.histogram_stride > 1 ? ("exact tails and 1 chunk in up to " +
                                std::to_string(o.histogram_stride) + " of large values")
                                   .c_str()
                             : "every value",
      peak_rss_bytes() / 1048576.0, printable(a.out).c_str());
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
  add_number(cmd, "--n", a->options.n, ranges::kImages,
             "images to sample (clamped to the number available)")
      ->capture_default_str();
  add_number(cmd, "--seed", a->options.seed, ranges::kSeed, "sampling seed")->capture_default_str();
  cmd->add_option("--shard", a->shard, "i/N: calibrate every N-th sampled image from i")
      ->capture_default_str();
  add_number(cmd, "--threads", a->options.threads, ranges::threads(), "threads in all");
  add_number(cmd, "--workers", a->options.workers, ranges::workers_or_auto(),
             "images calibrated at once, each by its own single-threaded executor; the "
             "statistics depend neither on it nor on --threads");
  add_number(cmd, "--histogram-stride", a->options.histogram_stride, ranges::kHistogramStride,
             "histogram sampling for values of 8192+ elements: the outer ~0.2% of each "
             "tail binned exactly, the rest from one 256-value chunk in up to this many "
             "(1: bin every value; min, max and counts always see all)")
      ->capture_default_str();
  cmd->add_option("--out", a->out, "stats file to write (CBOR; .json for JSON)")->required();
  cmd->add_option("--json", a->json, "also write timings and counts as JSON");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] { run_calibrate(*a); });
}

}  // namespace edgeq::cli
