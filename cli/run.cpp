// edgeq run: flags -> edgeq::detect (edgeq/detect.h) over an image, a folder or a video. Prints
// one line per frame and a latency summary; optionally writes detections JSON, drawn images and a
// timing report. Serially by default; --pipeline overlaps read, inference and post.
#include <iostream>

#include "choice_options.h"
#include "commands.h"
#include "edgeq/choices.h"
#include "edgeq/detect.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/json.h"
#include "edgeq/text.h"
#include "ledger_options.h"
#include "number_options.h"
#include "run_options.h"

namespace edgeq::cli {
namespace {

struct RunArgs {
  std::string model, image, report;
  std::string pipeline_mode = "auto";  // --pipeline-mode, as DetectOptions::pipeline_mode
  DetectOptions o;
  RunOptions run;
  bool queue_given = false, mode_given = false;
  LedgerArgs ledger;
};

void run_run(RunArgs& a) {
  a.o.session.exec = exec_options(a.run);
  a.o.pipeline_mode = parse<PipelineMode>(a.pipeline_mode, "--pipeline-mode");
  check_distinct_folders({"--image", a.image}, {"--draw", a.o.draw});
  RoleFile draw{"--draw", a.o.draw};
  if (drawings_go_to_folder(a.image, a.o.draw)) {
    draw.kind = RoleFile::kFolder;  // the drawings' names: a file there may be no other output
    draw.files = [source = a.image](const std::string& f) { return is_drawing_name(source, f); };
  }
  check_distinct_files({{"--model", a.model}, image_input("--image", a.image)},
                       {{"--json", a.o.json, RoleFile::kText},
                        draw,
                        {"--report", a.report, RoleFile::kText},
                        ledger_output(a.ledger)});
  EDGEQ_CHECK(a.o.pipeline || (!a.o.drop_late && !a.queue_given && !a.mode_given),
              "--queue, --drop-late and --pipeline-mode need --pipeline");
  LedgerRecorder ledger(a.ledger);
  InterruptScope interrupt;
  a.o.stop = &interrupt.flag();
  a.o.on_frame = [](const std::string& line) { std::cout << printable(line) << "\n"; };
  a.o.progress = [](const ProgressEvent& e) {
    if (e.kind != ProgressEvent::Kind::kStep) std::cerr << printable(e.message) << "\n";
    return true;
  };
  const DetectReport r = detect(Model::load(a.model), a.image, a.o);
  if (!a.report.empty()) write_file_atomic(a.report, r.json + "\n");
  std::cout << r.summary << std::flush;
  if (r.interrupted)  // SIGINT / SIGTERM: exit 130 / 143
    throw Cancelled("the frames read before it are finished and written");
  ledger.record("run", parse_json_text(r.json), a.model, a.o.json);
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Detect objects / people (with keypoints) in an image, a folder of images or a video");
  cmd->add_option("--model", a->model, "ONNX model (YOLO detect or pose, raw output)")->required();
  cmd->add_option("--image", a->image, "image file, folder (recursive) or video file")->required();
  add_number(cmd, "--conf", a->o.session.conf, ranges::kFraction,
             "keep detections with score > conf")
      ->capture_default_str();
  add_number(cmd, "--iou", a->o.session.iou, ranges::kFraction, "NMS IoU threshold")
      ->capture_default_str();
  add_number(cmd, "--max-det", a->o.session.max_det, ranges::kMaxDet,
             "at most this many detections per image")
      ->capture_default_str();
  add_run_options(cmd, a->run);
  cmd->add_option("--json", a->o.json,
                  "write detections JSON (one object for an image file, an array otherwise)");
  cmd->add_option("--draw", a->o.draw, "write drawn image(s): a file for one image, else a folder");
  cmd->add_flag("--pipeline", a->o.pipeline,
                "overlap read + letterbox, inference and decode + outputs in three threads "
                "(inference gets --threads, the others one thread each)");
  cmd->add_option("--pipeline-mode", a->pipeline_mode,
                  "auto: measure the first 4 frames serially, then run in windows, serially or "
                  "in threads, keeping whichever measures faster and trying the other now and "
                  "then; threads: always three threads (so does --drop-late)")
      ->check(choice_of<PipelineMode>())
      ->capture_default_str();
  add_number(cmd, "--queue", a->o.queue, ranges::kQueue, "frames each pipeline queue holds")
      ->capture_default_str();
  cmd->add_flag("--drop-late", a->o.drop_late,
                "live sources: when inference falls behind, drop the oldest waiting frame "
                "instead of making the reader wait");
  cmd->add_option("--report", a->report,
                  "write the timing report as JSON: per-stage and end-to-end P50 / P95 / max, "
                  "throughput, dropped and skipped frames, peak RSS");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a, cmd] {
    a->queue_given = cmd->count("--queue") > 0;
    a->mode_given = cmd->count("--pipeline-mode") > 0;
    run_run(*a);
  });
}

}  // namespace edgeq::cli
