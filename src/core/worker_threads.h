// The one worker pool: N threads that each run fn(worker index) once, and the first exception
// any of them threw, rethrown to the caller.
#pragma once
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace edgeq {

class WorkerThreads {
 public:
  // Starts n threads running fn(0) ... fn(n - 1).
  WorkerThreads(int n, const std::function<void(int)>& fn);
  // Joins what join() has not (an exception not collected by join() is dropped).
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;
  // Waits for every worker, then rethrows the first exception one of them threw.
  void join();

 private:
  std::function<void(int)> fn_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::exception_ptr error_;
};

// fn(0) ... fn(n - 1), each on its own thread (on the calling thread when n is 1); returns when
// all are done and rethrows the first exception one of them threw.
void run_workers(int n, const std::function<void(int)>& fn);

}  // namespace edgeq
