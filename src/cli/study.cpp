// edgeq study: flags (or a JSON config with the same keys) -> edgeq::study (edgeq/study.h), which
// caches every step in OUT/cache and writes OUT/data.json and the self-contained OUT/index.html.
#include "edgeq/study.h"

#include <functional>
#include <iostream>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "core/comma_list.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/progress.h"

namespace edgeq::cli {
namespace {

struct StudyArgs {
  std::string config, models, schemes, arms;
  StudyConfig o;  // what flags parse into; only flags given override the config file
  std::vector<std::pair<std::string, std::function<void(StudyConfig&)>>> given;
  LedgerArgs ledger;
};

// --flag bound to one field of the configuration.
template <typename T>
CLI::Option* field(CLI::App* cmd, StudyArgs& a, const std::string& flag, T StudyConfig::*f,
                   const std::string& what) {
  a.given.emplace_back(flag, [&a, f](StudyConfig& o) { o.*f = a.o.*f; });
  return cmd->add_option(flag, a.o.*f, what)->capture_default_str();
}

// Each finished step's line, the search's and weight repair's lines indented below it, warnings;
// Ctrl-C stops the study before its next step (or inside weight repair and the search).
ProgressCallback study_printer(const InterruptScope& interrupt) {
  return [&interrupt](const ProgressEvent& e) {
    if (e.kind == ProgressEvent::Kind::kWarning)
      std::cerr << "warning: " << e.message << "\n";
    else if (e.kind == ProgressEvent::Kind::kMessage)
      std::cerr << (e.task == "study" ? "" : "    ") << e.message << "\n" << std::flush;
    return !interrupt.interrupted();
  };
}

void run_study_cli(const StudyArgs& a, CLI::App* cmd) {
  StudyConfig o;
  if (!a.config.empty()) {
    try {
      o = study_config_from_json(read_file(a.config, kMaxTextBytes));
    } catch (const Error& e) {
      fail("--config ", a.config, ": ", e.what());
    }
  }
  auto given = [&](const std::string& flag) { return cmd->count(flag) > 0; };
  if (given("--models")) o.models = comma_list(a.models);
  if (given("--schemes")) o.schemes = comma_list(a.schemes);
  if (given("--arms")) o.arms = comma_list(a.arms);
  for (const auto& [flag, set] : a.given)
    if (given(flag)) set(o);
  LedgerRecorder ledger(a.ledger);
  InterruptScope interrupt;
  o.progress = study_printer(interrupt);
  const StudyResult r = study(o);
  std::printf(
      "study: %zu runs, %zu steps (%zu cached) in %s\nwrote %s/data.json\nwrote %s/index.html\n",
      r.runs, r.steps, r.cached, format_duration(r.seconds).c_str(), o.out.c_str(), o.out.c_str());
  ledger.record("study", parse_json_text(r.ledger_json), "", o.out + "/data.json");
}

}  // namespace

void register_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  auto* cmd = app.add_subcommand(
      "study",
      "Models x arms x schemes: cut, calibrate, quantize, compare, doctor, latency; "
      "data.json and a self-contained HTML report");
  StudyArgs& s = *a;
  cmd->add_option("--config", a->config, "JSON file with the same keys (flags given win)");
  cmd->add_option("--models", a->models, "FP32 ONNX models, comma-separated (named by file name)");
  field(cmd, s, "--images", &StudyConfig::images, "calibration images: folder, list file or image");
  field(cmd, s, "--test", &StudyConfig::test, "test images (compare, thumbnails, probes)");
  field(cmd, s, "--labels", &StudyConfig::labels,
        "YOLO labels of the test images for mAP (default: labels/ beside images/)");
  field(cmd, s, "--probe-labels", &StudyConfig::probe_labels,
        "CSV image,label: task probes on arm A's pooled taps (edgeq probe)");
  field(cmd, s, "--val", &StudyConfig::val, "images for the w8a8-autoP search (default: --images)");
  cmd->add_option("--schemes", a->schemes,
                  "w8a16, w8a8, w8a8-autoP (mixed precision, P % at 16 bit; arm C)")
      ->default_str("w8a16,w8a8");
  cmd->add_option("--arms", a->arms, "A, B, C (edgeq cut)")->default_str("A,B,C");
  field(cmd, s, "--target", &StudyConfig::target,
        "doctor's target: qnn-htp | rknn | cpu | openvino");
  field(cmd, s, "--placement", &StudyConfig::placement, "auto (from --target) | ort | qnn | cpu");
  field(cmd, s, "--range", &StudyConfig::range, "minmax | percentile | entropy | mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}));
  field(cmd, s, "--out", &StudyConfig::out, "folder for data.json, index.html and cache/");
  field(cmd, s, "--calib-n", &StudyConfig::calib_n, "calibration images sampled");
  field(cmd, s, "--seed", &StudyConfig::seed, "calibration sampling seed");
  field(cmd, s, "--test-n", &StudyConfig::test_n, "test images used (0: all)");
  field(cmd, s, "--auto-n", &StudyConfig::auto_n, "search images for w8a8-autoP");
  field(cmd, s, "--bench-runs", &StudyConfig::bench_runs, "timed runs per latency");
  field(cmd, s, "--bench-warmup", &StudyConfig::bench_warmup, "untimed runs first");
  field(cmd, s, "--threads", &StudyConfig::threads, "threads (0: all cores)")->default_str("");
  field(cmd, s, "--thumbnails", &StudyConfig::thumbnails, "test images drawn in the report");
  field(cmd, s, "--probe-folds", &StudyConfig::probe_folds, "probe cross-validation folds");
  field(cmd, s, "--probe-l2", &StudyConfig::probe_l2, "probe L2 penalty");
  a->given.emplace_back("--weight-repair",
                        [&s](StudyConfig& o) { o.weight_repair = s.o.weight_repair; });
  cmd->add_flag("--weight-repair", s.o.weight_repair,
                "weight repair as quantize --images runs it, on the calibration sample");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a, cmd] { run_study_cli(*a, cmd); });
}

}  // namespace edgeq::cli
