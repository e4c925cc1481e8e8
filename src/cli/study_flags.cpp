#include "cli/study_flags.h"

#include "core/comma_list.h"
#include "core/error.h"
#include "core/file_io.h"

namespace edgeq::cli {
namespace {

// --flag bound to one field of the configuration.
template <typename T>
CLI::Option* field(CLI::App* cmd, StudyFlags& f, const std::string& flag, T StudyConfig::*m,
                   const std::string& what) {
  f.given.emplace_back(flag, [&f, m](StudyConfig& o) { o.*m = f.o.*m; });
  return cmd->add_option(flag, f.o.*m, what)->capture_default_str();
}

}  // namespace

void add_study_config_flags(CLI::App* cmd, StudyFlags& f) {
  cmd->add_option("--config", f.config, "JSON file with the same keys (flags given win)");
  cmd->add_option("--models", f.models, "FP32 ONNX models, comma-separated (named by file name)");
  field(cmd, f, "--images", &StudyConfig::images, "calibration images: folder, list file or image");
  field(cmd, f, "--test", &StudyConfig::test, "test images (compare, thumbnails, probes)");
  field(cmd, f, "--labels", &StudyConfig::labels,
        "YOLO labels of the test images for mAP (default: labels/ beside images/)");
  field(cmd, f, "--probe-labels", &StudyConfig::probe_labels,
        "CSV image,label: task probes on arm A's pooled taps (edgeq probe)");
  field(cmd, f, "--val", &StudyConfig::val, "images for the w8a8-autoP search (default: --images)");
  cmd->add_option("--schemes", f.schemes,
                  "w8a16, w8a8, w8a8-autoP (mixed precision, P % at 16 bit; arm C)")
      ->default_str("w8a16,w8a8");
  cmd->add_option("--arms", f.arms, "A, B, C (edgeq cut)")->default_str("A,B,C");
  field(cmd, f, "--target", &StudyConfig::target,
        "doctor's target: qnn-htp | rknn | cpu | openvino");
  field(cmd, f, "--placement", &StudyConfig::placement, "auto (from --target) | ort | qnn | cpu");
  field(cmd, f, "--range", &StudyConfig::range, "minmax | percentile | entropy | mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}));
  field(cmd, f, "--out", &StudyConfig::out, "folder for data.json, index.html and cache/");
  field(cmd, f, "--calib-n", &StudyConfig::calib_n, "calibration images sampled");
  field(cmd, f, "--seed", &StudyConfig::seed, "calibration sampling seed");
  field(cmd, f, "--test-n", &StudyConfig::test_n, "test images used (0: all)");
  field(cmd, f, "--auto-n", &StudyConfig::auto_n, "search images for w8a8-autoP");
  field(cmd, f, "--bench-runs", &StudyConfig::bench_runs, "timed runs per latency");
  field(cmd, f, "--bench-warmup", &StudyConfig::bench_warmup, "untimed runs first");
  field(cmd, f, "--threads", &StudyConfig::threads, "threads (0: all cores)")->default_str("");
  field(cmd, f, "--thumbnails", &StudyConfig::thumbnails, "test images drawn in the report");
  field(cmd, f, "--probe-folds", &StudyConfig::probe_folds, "probe cross-validation folds");
  field(cmd, f, "--probe-l2", &StudyConfig::probe_l2, "probe L2 penalty");
  f.given.emplace_back("--weight-repair",
                       [&f](StudyConfig& o) { o.weight_repair = f.o.weight_repair; });
  cmd->add_flag("--weight-repair", f.o.weight_repair,
                "weight repair as quantize --images runs it, on the calibration sample");
}

StudyConfig study_config_from_flags(const StudyFlags& f, const CLI::App& cmd) {
  StudyConfig o;
  if (!f.config.empty()) {
    try {
      o = study_config_from_json(read_file(f.config, kMaxTextBytes));
    } catch (const Error& e) {
      fail("--config ", f.config, ": ", e.what());
    }
  }
  auto given = [&](const std::string& flag) { return cmd.count(flag) > 0; };
  if (given("--models")) o.models = comma_list(f.models);
  if (given("--schemes")) o.schemes = comma_list(f.schemes);
  if (given("--arms")) o.arms = comma_list(f.arms);
  for (const auto& [flag, set] : f.given)
    if (given(flag)) set(o);
  return o;
}

}  // namespace edgeq::cli
