#include "frames/pipeline.h"

#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "frames/bounded_queue.h"

namespace edgeq {
namespace {

// The first exception any stage throws; the others are consequences of stopping.
class FirstError {
 public:
  void capture() {
    std::lock_guard<std::mutex> lock(m_);
    if (!error_) error_ = std::current_exception();
  }
  void rethrow_if_any() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex m_;
  std::exception_ptr error_;
};

}  // namespace

RunStats run_pipelined(const FrameStages& stages, const PipelineOptions& opt,
                       const std::atomic<bool>* stop) {
  BoundedQueue<FrameWork> to_infer(opt.queue), to_post(opt.queue);
  FirstError error;
  std::atomic<bool> failed{false};
  std::atomic<size_t> dropped{0};
  auto fail_all = [&] {
    error.capture();
    failed = true;
    to_infer.cancel();
    to_post.cancel();
  };

  RunStats r;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread reader([&] {
    try {
      for (size_t seq = opt.first_seq; !failed && !(stop && *stop); ++seq) {
        FrameWork w;
        if (!read_step(stages, seq, w)) break;
        if (opt.drop_late)
          dropped += to_infer.push_dropping_oldest(std::move(w));
        else if (!to_infer.push(std::move(w)))
          break;
      }
      to_infer.close();
    } catch (...) {
      fail_all();
    }
  });
  std::thread inferer([&] {
    try {
      while (std::optional<FrameWork> w = to_infer.pop()) {
        infer_step(stages, *w);
        if (!to_post.push(std::move(*w))) break;
      }
      to_post.close();
    } catch (...) {
      fail_all();
    }
  });
  try {
    while (std::optional<FrameWork> w = to_post.pop()) {
      post_step(stages, *w);
      r.timings.add(*w);
    }
  } catch (...) {
    fail_all();
  }
  reader.join();
  inferer.join();
  error.rethrow_if_any();

  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.dropped = dropped;
  r.interrupted = stop && *stop;
  r.queue_high_water[0] = to_infer.high_water();
  r.queue_high_water[1] = to_post.high_water();
  return r;
}

}  // namespace edgeq
