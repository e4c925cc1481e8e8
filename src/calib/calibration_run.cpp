#include "calib/calibration_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <opencv2/core.hpp>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/worker_threads.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

using Clock = std::chrono::steady_clock;

struct Loaded {
  Tensor x;
  std::string error;  // unreadable image
};

// What the workers share: the next image to take, the callbacks (one call at a time), and the
// first error, which stops them all.
struct Shared {
  Shared(const ImageLoader& l, size_t n, const std::function<void()>& image,
         const std::function<void(const std::string&)>& skip)
      : load(l), count(n), on_image(image), on_skip(skip) {}
  const ImageLoader& load;
  size_t count;
  const std::function<void()>& on_image;
  const std::function<void(const std::string&)>& on_skip;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex report;
  std::exception_ptr error;

  Loaded load_one(size_t i) {
    Loaded l;
    try {
      l.x = load(i);
    } catch (const Error& e) {
      l.error = e.what();
    }
    return l;
  }
  size_t take() { return stop ? count : next++; }
  void done(const std::string* skipped) {
    std::lock_guard<std::mutex> lock(report);
    if (skipped && on_skip) on_skip(*skipped);
    if (on_image) on_image();
    throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM (core/interrupt.h)
  }
  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(report);
    if (!error) error = e;
    stop = true;
  }
};

struct WorkerResult {
  Stats stats;
  size_t used = 0, unreadable = 0;
  Clock::time_point ready, end;
  std::vector<std::string> observed, derived;
};

// One worker: its own calibrator (planned on this thread, as oneDNN wants its primitives run on
// the thread that created them), images taken one by one; the next image is read while this one's
// statistics are binned (Calibrator::add's `alongside`).
void run_worker(const Graph& graph, const std::string& sha, const std::string& preprocessing,
                const std::string& input, const CalibratorOptions& opt, Shared& shared,
                WorkerResult& out) {
  try {
    Calibrator cal(graph, sha, preprocessing, opt);
    out.observed = cal.observed();
    out.derived = cal.derived();
    out.ready = out.end = Clock::now();
    size_t i = shared.take();
    if (i >= shared.count) return;
    Loaded cur = shared.load_one(i);
    for (;;) {
      const size_t j = shared.take();
      Loaded next;
      std::function<void()> read_next;
      if (j < shared.count) read_next = [&] { next = shared.load_one(j); };
      if (cur.error.empty()) {
        cal.add({{input, cur.x}}, read_next);
        ++out.used;
        shared.done(nullptr);
      } else {
        ++out.unreadable;
        shared.done(&cur.error);
        if (read_next) read_next();
      }
      if (j >= shared.count) break;
      cur = std::move(next);
    }
    out.end = Clock::now();
    if (out.used > 0) out.stats = cal.take();
  } catch (...) {
    shared.fail(std::current_exception());
  }
}

}  // namespace

CalibrationRun calibrate_images(const Graph& graph, const std::string& model_sha256,
                                const std::string& preprocessing, const std::string& input,
                                size_t count, const ImageLoader& load,
                                const CalibrationRunOptions& opt,
                                const std::function<void()>& on_image,
                                const std::function<void(const std::string&)>& on_skip) {
  EDGEQ_CHECK(opt.workers >= 1, "calibration needs at least one worker, got ", opt.workers);
  const size_t workers = std::max<size_t>(1, std::min<size_t>(opt.workers, count));
  Shared shared(load, count, on_image, on_skip);
  std::vector<WorkerResult> results(workers);
  run_workers(static_cast<int>(workers), [&](int w) {
    run_worker(graph, model_sha256, preprocessing, input, opt.calibrator, shared, results[w]);
  });
  if (shared.error) std::rethrow_exception(shared.error);

  CalibrationRun run;
  run.observed = results[0].observed;
  run.derived = results[0].derived;
  Clock::time_point first = results[0].ready, last = results[0].end;
  bool any = false;
  for (WorkerResult& r : results) {
    first = std::min(first, r.ready);
    last = std::max(last, r.end);
    run.used += r.used;
    run.unreadable += r.unreadable;
    if (r.used == 0) continue;
    if (any)
      merge_into(run.stats, r.stats);
    else
      run.stats = std::move(r.stats);
    any = true;
    r.stats = Stats();
  }
  run.seconds = std::chrono::duration<double>(last - first).count();
  EDGEQ_CHECK(run.used > 0, "no readable image among the ", count, " selected; nothing written");
  return run;
}

CalibrationRun calibrate_image_files(const Graph& graph, const std::string& model_sha256,
                                     const std::vector<CalibrationImage>& images,
                                     const CalibrationRunOptions& opt,
                                     const std::function<void()>& on_image,
                                     const std::function<void(const std::string&)>& on_skip) {
  const std::string input = yolo_image_input(graph).name;
  const int h = yolo_input_height(graph), w = yolo_input_width(graph);
  cv::setNumThreads(0);
  return calibrate_images(
      graph, model_sha256, letterbox_preprocessing(h, w), input, images.size(),
      [&](size_t i) { return preprocess_image(read_image(images[i].path), h, w, nullptr); }, opt,
      on_image, on_skip);
}

}  // namespace edgeq
