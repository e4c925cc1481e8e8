// edgeq compare: a test model (e.g. quantized) against its FP32 reference on the same images:
// tensor errors per output, detections after NMS matched one-to-one, and with labels mAP / OKS
// mAP for both. Table on stdout, progress on stderr, JSON with --json.
#include "eval/compare.h"

#include <iostream>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "cli/run_options.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "eval/compare_report.h"

namespace edgeq::cli {

void register_compare(CLI::App& app) {
  auto a = std::make_shared<CompareRunOptions>();
  auto json = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto ledger = std::make_shared<LedgerArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare a test model (e.g. quantized) with its reference on the same images");
  cmd->add_option("--ref", a->ref_model, "reference ONNX model (FP32)")->required();
  cmd->add_option("--test", a->test_model, "model under test (same outputs)")->required();
  cmd->add_option("--images", a->images, "image folder (recursive) or one image")->required();
  cmd->add_option("--labels", a->labels,
                  "YOLO txt labels folder (DIR/<image path below --images>.txt); default: "
                  "labels/ beside images/ when present");
  cmd->add_option("--n", a->max_images, "use at most N images (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--conf", a->post.conf, "detection score threshold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--iou", a->post.iou, "NMS IoU threshold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--map-conf", a->map_conf, "score threshold of detections scored for mAP")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  auto run = std::make_shared<RunOptions>();  // the test model's; the reference runs in float
  add_run_options(cmd, *run);
  cmd->add_option("--save-inputs", a->save_inputs,
                  "write each image's preprocessed input as DIR/<k>.npy (k from 0), to run "
                  "another engine on");
  cmd->add_option("--test-outputs", a->test_outputs,
                  "judge another engine: read the test model's outputs from DIR/<k>/<output>.npy "
                  "(as tools/ort/ort_run.js writes them) instead of running it");
  cmd->add_option("--json", *json, "write the report as JSON");
  cmd->add_flag("--quiet", *quiet, "no per-image progress on stderr");
  add_ledger_options(cmd, *ledger);
  cmd->callback([a, json, quiet, run, ledger] {
    check_distinct_files(
        {{"--ref", a->ref_model}, {"--test", a->test_model}, {"--images", a->images}},
        {{"--json", *json}});
    const ExecutorOptions test = run->executor();
    a->threads = test.threads;
    a->exec = test.exec;
    a->emulate = test.emulate;
    LedgerRecorder recorder(*ledger);
    CompareResult rep = run_compare(*a, *quiet ? nullptr : &std::cerr);
    print_compare_report(rep, std::cout);
    const nlohmann::json report = compare_report_json(rep);
    if (!json->empty()) write_file_atomic(*json, json_text(report, 2) + "\n");
    recorder.record("compare", report, a->test_model, *json);
  });
}

}  // namespace edgeq::cli
