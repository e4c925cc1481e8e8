// edgeq compare: flags -> edgeq::compare (edgeq/compare.h): a test model (e.g. quantized) against
// its FP32 reference on the same images. Tables on stdout, progress on stderr, JSON with --json.
#include "edgeq/compare.h"

#include <iostream>
#include <optional>

#include "commands.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/json.h"
#include "ledger_options.h"
#include "number_options.h"
#include "progress_printer.h"
#include "run_options.h"

namespace edgeq::cli {
namespace {

struct CompareArgs {
  std::string ref, test, images, json;
  bool quiet = false;
  CompareOptions o;
  RunOptions run;  // the test model's; the reference runs in float
  LedgerArgs ledger;
};

void run_compare_cli(CompareArgs& a) {
  a.o.exec = exec_options(a.run);
  const FileFilter npy = with_extension(".npy");
  check_distinct_files({{"--ref", a.ref},
                        {"--test", a.test},
                        image_input("--images", a.images),
                        {"--labels", a.o.labels, RoleFile::kFile, with_extension(".txt")},
                        {"--test-outputs", a.o.test_outputs, RoleFile::kFile, npy}},
                       {{"--json", a.json, RoleFile::kText},
                        {"--save-inputs", a.o.save_inputs, RoleFile::kFolder, npy},
                        ledger_output(a.ledger)});
  LedgerRecorder recorder(a.ledger);
  InterruptScope interrupt;  // quiet or not, SIGINT / SIGTERM stop at the next image
  std::optional<ProgressPrinter> printer;
  if (!a.quiet) a.o.progress = printer.emplace().callback();
  const CompareReport rep = compare(Model::load(a.ref), Model::load(a.test), a.images, a.o);
  std::cout << rep.text;
  if (!a.json.empty()) write_file_atomic(a.json, rep.json + "\n");
  recorder.record("compare", parse_json_text(rep.json), a.test, a.json);
}

}  // namespace

void register_compare(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare a test model (e.g. quantized) with its reference on the same images");
  cmd->add_option("--ref", a->ref, "reference ONNX model (FP32)")->required();
  cmd->add_option("--test", a->test, "model under test (same outputs)")->required();
  cmd->add_option("--images", a->images, "image folder (recursive) or one image")->required();
  cmd->add_option("--labels", a->o.labels,
                  "YOLO txt labels folder (DIR/<image path below --images>.txt); default: "
                  "labels/ beside images/ when present");
  add_number(cmd, "--n", a->o.n, ranges::kImagesOrAll, "use at most N images");
  add_number(cmd, "--conf", a->o.conf, ranges::kFraction, "detection score threshold")
      ->capture_default_str();
  add_number(cmd, "--iou", a->o.iou, ranges::kFraction, "NMS IoU threshold")->capture_default_str();
  add_number(cmd, "--map-conf", a->o.map_conf, ranges::kFraction,
             "score threshold of detections scored for mAP")
      ->capture_default_str();
  add_run_options(cmd, a->run);
  cmd->add_option("--save-inputs", a->o.save_inputs,
                  "write each image's preprocessed input as DIR/<k>.npy (k from 0), to run "
                  "another engine on");
  cmd->add_option("--test-outputs", a->o.test_outputs,
                  "judge another engine: read the test model's outputs from DIR/<k>/<output>.npy "
                  "(as tools/ort/ort_run.js writes them) instead of running it");
  cmd->add_option("--json", a->json, "write the report as JSON");
  cmd->add_flag("--quiet", a->quiet, "no per-image progress on stderr");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] { run_compare_cli(*a); });
}

}  // namespace edgeq::cli
