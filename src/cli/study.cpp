// edgeq study: the n-vs-s x arms x schemes experiment in one command (study/study_run.h): every
// step cached in OUT/cache, then OUT/data.json and the self-contained OUT/index.html.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "core/comma_list.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/progress.h"
#include "study/study_ledger.h"
#include "study/study_run.h"

namespace edgeq::cli {
namespace {

struct StudyArgs {
  std::string config, models, schemes, arms;
  StudyOptions o;
  LedgerArgs ledger;
};

void run_study_cli(const StudyArgs& a, CLI::App* cmd) {
  StudyOptions o;
  if (!a.config.empty()) {
    nlohmann::json j;
    try {
      j = parse_json_text(read_file(a.config, kMaxTextBytes));
    } catch (const nlohmann::json::exception& e) {
      fail("--config ", a.config, ": not JSON (", e.what(), ")");
    }
    o = study_options_from_json(j);
  }
  // Flags given on the command line win over the config file.
  auto given = [&](const char* flag) { return cmd->count(flag) > 0; };
  if (given("--models")) o.models = comma_list(a.models);
  if (given("--schemes")) o.schemes = comma_list(a.schemes);
  if (given("--arms")) o.arms = comma_list(a.arms);
  if (given("--images")) o.images = a.o.images;
  if (given("--test")) o.test = a.o.test;
  if (given("--labels")) o.labels = a.o.labels;
  if (given("--probe-labels")) o.probe_labels = a.o.probe_labels;
  if (given("--val")) o.val = a.o.val;
  if (given("--target")) o.target = a.o.target;
  if (given("--placement")) o.placement = a.o.placement;
  if (given("--range")) o.range = a.o.range;
  if (given("--out")) o.out = a.o.out;
  if (given("--calib-n")) o.calib_n = a.o.calib_n;
  if (given("--seed")) o.seed = a.o.seed;
  if (given("--test-n")) o.test_n = a.o.test_n;
  if (given("--auto-n")) o.auto_n = a.o.auto_n;
  if (given("--bench-runs")) o.bench_runs = a.o.bench_runs;
  if (given("--bench-warmup")) o.bench_warmup = a.o.bench_warmup;
  if (given("--threads")) o.threads = a.o.threads;
  if (given("--thumbnails")) o.thumbnails = a.o.thumbnails;
  if (given("--probe-folds")) o.probe_folds = a.o.probe_folds;
  if (given("--probe-l2")) o.probe_l2 = a.o.probe_l2;
  if (given("--weight-repair")) o.weight_repair = a.o.weight_repair;
  check_study_options(o);
  LedgerRecorder ledger(a.ledger);
  // Ctrl-C: the study stops before its next step (or inside weight repair and the search); the
  // finished steps stay in the cache, so the same command goes on from there.
  InterruptScope interrupt;
  o.stop = [&interrupt] { return interrupt.interrupted(); };
  StudyResult r;
  try {
    r = run_study(o, std::cerr);
  } catch (const Cancelled&) {
    throw Cancelled("the finished steps are kept in " + o.out +
                    "/cache (the same command goes on from there); no data.json written");
  }
  write_study(o, r);
  std::printf(
      "study: %zu runs, %zu steps (%zu cached) in %s\nwrote %s/data.json\nwrote %s/index.html\n",
      r.data.at("runs").size(), r.steps, r.cached, format_duration(r.seconds).c_str(),
      o.out.c_str(), o.out.c_str());
  ledger.record("study", study_ledger_report(r), "", o.out + "/data.json");
}

}  // namespace

void register_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  auto* cmd = app.add_subcommand(
      "study",
      "Models x arms x schemes: cut, calibrate, quantize, compare, doctor, latency; "
      "data.json and a self-contained HTML report");
  cmd->add_option("--config", a->config, "JSON file with the same keys (flags given win)");
  cmd->add_option("--models", a->models, "FP32 ONNX models, comma-separated (named by file name)");
  cmd->add_option("--images", a->o.images, "calibration images: folder, list file or image");
  cmd->add_option("--test", a->o.test, "test images (compare, thumbnails, probes)");
  cmd->add_option("--labels", a->o.labels,
                  "YOLO labels of the test images for mAP (default: labels/ beside images/)");
  cmd->add_option("--probe-labels", a->o.probe_labels,
                  "CSV image,label: task probes on arm A's pooled taps (edgeq probe)");
  cmd->add_option("--val", a->o.val, "images for the w8a8-autoP search (default: --images)");
  cmd->add_option("--schemes", a->schemes,
                  "w8a16, w8a8, w8a8-autoP (mixed precision, P % at 16 bit; arm C)")
      ->default_str("w8a16,w8a8");
  cmd->add_option("--arms", a->arms, "A, B, C (edgeq cut)")->default_str("A,B,C");
  cmd->add_option("--target", a->o.target, "doctor's target: qnn-htp | rknn | cpu | openvino")
      ->capture_default_str();
  cmd->add_option("--placement", a->o.placement, "auto (from --target) | ort | qnn | cpu")
      ->capture_default_str();
  cmd->add_option("--range", a->o.range, "minmax | percentile | entropy | mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}))
      ->capture_default_str();
  cmd->add_option("--out", a->o.out, "folder for data.json, index.html and cache/");
  cmd->add_option("--calib-n", a->o.calib_n, "calibration images sampled")->capture_default_str();
  cmd->add_option("--seed", a->o.seed, "calibration sampling seed")->capture_default_str();
  cmd->add_option("--test-n", a->o.test_n, "test images used (0: all)")->capture_default_str();
  cmd->add_option("--auto-n", a->o.auto_n, "search images for w8a8-autoP")->capture_default_str();
  cmd->add_option("--bench-runs", a->o.bench_runs, "timed runs per latency")->capture_default_str();
  cmd->add_option("--bench-warmup", a->o.bench_warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--threads", a->o.threads, "threads (0: all cores)");
  cmd->add_option("--thumbnails", a->o.thumbnails, "test images drawn in the report")
      ->capture_default_str();
  cmd->add_option("--probe-folds", a->o.probe_folds, "probe cross-validation folds")
      ->capture_default_str();
  cmd->add_option("--probe-l2", a->o.probe_l2, "probe L2 penalty")->capture_default_str();
  cmd->add_flag("--weight-repair", a->o.weight_repair,
                "weight repair as quantize --images runs it, on the calibration sample");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a, cmd] { run_study_cli(*a, cmd); });
}

}  // namespace edgeq::cli
