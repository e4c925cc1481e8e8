#include "core/worker_threads.h"

#include <utility>

namespace edgeq {

WorkerThreads::WorkerThreads(int n, const std::function<void(int)>& fn) : fn_(fn) {
  threads_.reserve(n);
  for (int w = 0; w < n; ++w)
    threads_.emplace_back([this, w] {
      try {
        fn_(w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!error_) error_ = std::current_exception();
      }
    });
}

WorkerThreads::~WorkerThreads() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void WorkerThreads::join() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void run_workers(int n, const std::function<void(int)>& fn) {
  if (n == 1) return fn(0);
  WorkerThreads workers(n, fn);
  workers.join();
}

}  // namespace edgeq
