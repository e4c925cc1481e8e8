// detect: the run over a source (deploy/): frames -> Detector stages -> FrameOutputs, serially or
// pipelined, and the timing report.
#include "edgeq/detect.h"

#include <sstream>

#include "api/api_impl.h"
#include "api/exec_options.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/option_range.h"
#include "core/process_stats.h"
#include "frames/auto_pipeline.h"
#include "frames/detector.h"
#include "frames/frame_outputs.h"
#include "frames/pipeline.h"
#include "frames/run_report.h"
#include "frames/serial_run.h"
#include "runtime/executor.h"
#include "vision/image_io.h"

namespace edgeq {

bool drawings_go_to_folder(const std::string& source, const std::string& draw) {
  return draws_to_folder(source, draw);
}

bool is_drawing_name(const std::string& source, const std::string& relative) {
  return is_frame_output_name(source, relative);
}

DetectReport detect(const Model& model, const std::string& source, const DetectOptions& o) {
  const SessionOptions& s = o.session;
  EDGEQ_CHECK(o.pipeline || (!o.drop_late && o.queue == DetectOptions().queue),
              "queue and drop_late apply to the pipeline only");
  (void)name(o.pipeline_mode);  // a value no name stands for (a cast) throws
  check_option("queue", o.queue, ranges::kQueue);
  const ExecutorOptions exec = session_executor_options(s);
  std::unique_ptr<FrameSource> frames = open_frames(source);  // fails fast on a bad source
  FrameOutputOptions fo{source, o.json, o.draw, o.on_frame};
  if (const auto* images = dynamic_cast<const ImageFrameSource*>(frames.get()))
    fo.inputs = &images->paths();
  FrameOutputs outputs(std::move(fo));  // checks the outputs against the frames' files
  const Graph& g = impl_of(model).graph;
  DetectorSpec spec = detector_spec(g);
  Executor ex(g, exec);
  DetectReport out;
  out.notices = ex.notices();  // plans the executor
  ProgressReporter progress(o.progress);
  for (const std::string& line : out.notices) progress.message("detect", line);
  PostprocessOptions post;
  post.conf = s.conf, post.iou = s.iou, post.max_det = s.max_det;
  Detector detector(ex, std::move(spec), post);
  outputs.open();  // creates the json / draw folders: only once the model is known to run

  // Stops at the next frame when `stop` is raised, the progress callback answers false or a front
  // end caught SIGINT / SIGTERM (core/interrupt.h).
  std::atomic<bool> halt{false};
  auto stop_asked = [&] { return (o.stop && o.stop->load()) || interrupt_requested(); };
  size_t posted = 0;
  FrameStages stages;
  stages.read = [&](FrameWork& w) {
    if (stop_asked()) halt = true;
    if (halt || !frames->next(&w.frame)) return false;
    detector.letterbox(w);
    return true;
  };
  stages.infer = [&](FrameWork& w) { detector.infer(w); };
  stages.post = [&](FrameWork& w) {
    detector.decode(w);
    outputs.write(w, detector.layout());
    ++posted;
    const bool go_on =
        !o.progress || o.progress({ProgressEvent::Kind::kStep, "detect", posted, 0, ""});
    if (!go_on || stop_asked()) halt = true;
  };

  RunReport rep;
  rep.model = model.name();
  rep.source = source;
  rep.pipeline = o.pipeline;
  rep.queue = o.queue;
  rep.drop_late = o.drop_late;
  const PipelineOptions queues{o.queue, o.drop_late};
  if (!o.pipeline) {
    rep.stats = run_serial(stages, &halt);
  } else if (o.pipeline_mode == PipelineMode::kThreads || o.drop_late) {
    rep.pipeline_mode = PipelineMode::kThreads;  // a live source keeps its reader
    rep.stats = run_pipelined(stages, queues, &halt);
  } else {
    rep.pipeline_mode = o.pipeline_mode;
    AutoPipelineOptions a;
    a.pipeline = queues;
    a.infer_threads = ex.threads();
    a.cores = available_cores();
    // No set_infer_threads: the executor's threads only go down (Executor::set_threads), and the
    // run must be able to go back to serial with the threads asked.
    AutoRun run = run_auto_pipeline(stages, a, &halt);
    rep.stats = std::move(run.stats);
    rep.choice = std::move(run.choice);
    rep.switches = std::move(run.switches);
    rep.serial_frames = run.serial_frames;
    rep.threaded_frames = run.threaded_frames;
  }
  rep.infer_threads = ex.threads();
  rep.detections = outputs.detections();
  rep.skipped = frames->skipped();
  rep.declared_frames = frames->declared();
  rep.missing_frames = frames->missing();
  rep.peak_rss_bytes = peak_rss_bytes();
  EDGEQ_CHECK(rep.stats.timings.frames() > 0 || rep.stats.interrupted,
              is_video_path(source) ? "no readable frames in video " : "no readable images in ",
              source);
  outputs.finish();

  out.frames = rep.stats.timings.frames();
  out.detections = rep.detections;
  out.skipped = static_cast<size_t>(rep.skipped);
  out.missing = static_cast<size_t>(rep.missing_frames);
  out.dropped = rep.stats.dropped;
  out.interrupted = rep.stats.interrupted;
  out.fps = rep.stats.frames_per_s();
  out.json = json_text(run_report_json(rep), 2);
  out.summary = printed([&](std::ostream& os) { print_run_summary(rep, os); });
  return out;
}

}  // namespace edgeq
