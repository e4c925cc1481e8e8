// edgeq run: detect (and for pose models, find keypoints) on images, a folder or a video:
// letterbox -> Executor -> decode + NMS -> original-image coordinates. Prints one line per frame
// and a latency summary; optionally writes detections JSON, drawn images and a timing report.
// Serially by default; --pipeline overlaps read, inference and post in three threads
// (deploy/pipeline.h). Both run the same per-frame stages (deploy/detector.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "cli/model_input.h"
#include "cli/run_options.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/process_stats.h"
#include "deploy/detector.h"
#include "deploy/frame_outputs.h"
#include "deploy/pipeline.h"
#include "deploy/run_report.h"
#include "deploy/serial_run.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "vision/image_io.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {
namespace {

struct RunArgs {
  std::string model, image, json, draw, report;
  PostprocessOptions post;
  RunOptions run;
  bool pipeline = false, drop_late = false, queue_given = false;
  int queue = 4;  // signed: CLI11 would wrap "-1" into a size_t
  LedgerArgs ledger;
};

void run_run(const RunArgs& a) {
  check_distinct_folders({"--image", a.image}, {"--draw", a.draw});
  check_distinct_files({{"--model", a.model}, {"--image", a.image}},
                       {{"--json", a.json}, {"--draw", a.draw}, {"--report", a.report}});
  EDGEQ_CHECK(a.pipeline || (!a.drop_late && !a.queue_given),
              "--queue and --drop-late need --pipeline");
  EDGEQ_CHECK(a.queue >= 1 && a.queue <= 4096, "--queue must be in [1, 4096]");
  LedgerRecorder ledger(a.ledger);
  std::unique_ptr<FrameSource> frames = open_frames(a.image);  // fails fast on a bad --image
  Graph g = load_onnx(a.model);
  DetectorSpec spec = detector_spec(g);
  Executor ex(std::move(g), a.run.executor());
  print_notices(ex);  // plans the executor
  Detector detector(ex, std::move(spec), a.post);
  // Creates the --json / --draw folders: only once the model is known to run.
  FrameOutputs outputs({a.image, a.json, a.draw, &std::cout});

  FrameStages stages;
  stages.read = [&](FrameWork& w) {
    if (!frames->next(&w.frame)) return false;
    detector.letterbox(w);
    return true;
  };
  stages.infer = [&](FrameWork& w) { detector.infer(w); };
  stages.post = [&](FrameWork& w) {
    detector.decode(w);
    outputs.write(w, detector.layout());
  };

  InterruptScope interrupt;
  RunReport rep;
  rep.model = a.model;
  rep.source = a.image;
  rep.pipeline = a.pipeline;
  rep.queue = static_cast<size_t>(a.queue);
  rep.drop_late = a.drop_late;
  rep.infer_threads = ex.threads();
  rep.stats = a.pipeline ? run_pipelined(stages, {static_cast<size_t>(a.queue), a.drop_late},
                                         &interrupt.flag())
                         : run_serial(stages, &interrupt.flag());
  rep.detections = outputs.detections();
  rep.skipped = frames->skipped();
  rep.peak_rss_bytes = peak_rss_bytes();
  EDGEQ_CHECK(rep.stats.timings.frames() > 0 || rep.stats.interrupted,
              is_video_path(a.image) ? "no readable frames in video " : "no readable images in ",
              a.image);

  outputs.finish();
  const nlohmann::json report = run_report_json(rep);
  if (!a.report.empty()) write_file_atomic(a.report, json_text(report, 2) + "\n");
  print_run_summary(rep, std::cout);
  std::cout << std::flush;
  if (rep.stats.interrupted) throw CLI::RuntimeError(130);  // what finished is written
  ledger.record("run", report, a.model, a.json);
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Detect objects / people (with keypoints) in an image, a folder of images or a video");
  cmd->add_option("--model", a->model, "ONNX model (YOLO detect or pose, raw output)")->required();
  cmd->add_option("--image", a->image, "image file, folder (recursive) or video file")->required();
  cmd->add_option("--conf", a->post.conf, "keep detections with score > conf")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--iou", a->post.iou, "NMS IoU threshold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-det", a->post.max_det, "at most this many detections per image")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_run_options(cmd, a->run);
  cmd->add_option("--json", a->json,
                  "write detections JSON (one object for an image file, an array otherwise)");
  cmd->add_option("--draw", a->draw, "write drawn image(s): a file for one image, else a folder");
  cmd->add_flag("--pipeline", a->pipeline,
                "overlap read + letterbox, inference and decode + outputs in three threads "
                "(inference gets --threads, the others one thread each)");
  cmd->add_option("--queue", a->queue, "frames each pipeline queue holds")->capture_default_str();
  cmd->add_flag("--drop-late", a->drop_late,
                "live sources: when inference falls behind, drop the oldest waiting frame "
                "instead of making the reader wait");
  cmd->add_option("--report", a->report,
                  "write the timing report as JSON: per-stage and end-to-end P50 / P95 / max, "
                  "throughput, dropped and skipped frames, peak RSS");
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a, cmd] {
    a->queue_given = cmd->count("--queue") > 0;
    run_run(*a);
  });
}

}  // namespace edgeq::cli
