#include "study_flags.h"

#include "choice_options.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/option_range.h"
#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {
namespace {

// --flag bound to one field of the configuration.
template <typename T>
CLI::Option* field(CLI::App* cmd, StudyFlags& f, const std::string& flag, T StudyConfig::*m,
                   const std::string& what) {
  f.given.emplace_back(flag, [&f, m](StudyConfig& o) { o.*m = f.o.*m; });
  return cmd->add_option(flag, f.o.*m, what)->capture_default_str();
}

// A number field, checked against its range when parsed.
template <typename T>
CLI::Option* number_field(CLI::App* cmd, StudyFlags& f, const std::string& flag, T StudyConfig::*m,
                          const OptionRange& r, const std::string& what) {
  return field(cmd, f, flag, m, what)->transform(in_range(r));
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
  // --placement: "auto" (nullopt) or a Placement.
  f.given.emplace_back("--placement", [&f](StudyConfig& o) { o.placement = f.o.placement; });
  cmd->add_option_function<std::string>(
         "--placement",
         [&f](const std::string& text) {
           if (detail::same_name(text, "auto"))
             f.o.placement.reset();
           else
             f.o.placement = parse<Placement>(text);
         },
         "auto (from --target) | ort | qnn | cpu")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return detail::same_name(text, "auto") || choice_of<Placement>()(text).empty()
                       ? ""
                       : "'" + text + "' is not one of auto, " + choices_text<Placement>();
          },
          ""))
      ->default_str("auto");
  f.given.emplace_back("--range", [&f](StudyConfig& o) { o.range = f.o.range; });
  add_choice(cmd, "--range", f.o.range, "minmax | percentile | entropy | mse")
      ->default_str(default_name(f.o.range));
  field(cmd, f, "--out", &StudyConfig::out, "folder for data.json, index.html and cache/");
  number_field(cmd, f, "--calib-n", &StudyConfig::calib_n, ranges::kImages,
               "calibration images sampled");
  number_field(cmd, f, "--seed", &StudyConfig::seed, ranges::kSeed, "calibration sampling seed");
  number_field(cmd, f, "--test-n", &StudyConfig::test_n, ranges::kImagesOrAll, "test images used");
  number_field(cmd, f, "--auto-n", &StudyConfig::auto_n, ranges::kImages,
               "search images for w8a8-autoP");
  number_field(cmd, f, "--bench-runs", &StudyConfig::bench_runs, ranges::kRuns,
               "timed runs per latency");
  number_field(cmd, f, "--bench-warmup", &StudyConfig::bench_warmup, ranges::kWarmup,
               "untimed runs first");
  number_field(cmd, f, "--threads", &StudyConfig::threads, ranges::threads(), "threads")
      ->default_str("");
  number_field(cmd, f, "--thumbnails", &StudyConfig::thumbnails, ranges::kCount,
               "test images drawn in the report");
  number_field(cmd, f, "--probe-folds", &StudyConfig::probe_folds, ranges::kFolds,
               "probe cross-validation folds (with --probe-labels)");
  number_field(cmd, f, "--probe-l2", &StudyConfig::probe_l2, ranges::kPenalty,
               "probe L2 penalty (with --probe-labels)");
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
  refuse_given(cmd, inert_study_options(o),
               {{"val", "--val"},
                {"auto_n", "--auto-n"},
                {"weight_repair", "--weight-repair"},
                {"probe_folds", "--probe-folds"},
                {"probe_l2", "--probe-l2"}});
  return o;
}

}  // namespace edgeq::cli
