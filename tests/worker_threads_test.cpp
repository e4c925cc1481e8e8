// The worker pool: every index runs exactly once, on its own thread (the caller's for one
// worker), and the first exception a worker throws reaches the caller after all have finished.
#include "core/worker_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.h"

namespace edgeq {
namespace {

TEST(WorkerThreads, EveryIndexRunsOnceOnItsOwnThread) {
  std::mutex m;
  std::multiset<int> seen;
  std::set<std::thread::id> threads;
  run_workers(4, [&](int w) {
    std::lock_guard<std::mutex> lock(m);
    seen.insert(w);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen, (std::multiset<int>{0, 1, 2, 3}));
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(WorkerThreads, OneWorkerRunsOnTheCallingThread) {
  std::thread::id ran;
  run_workers(1, [&](int) { ran = std::this_thread::get_id(); });
  EXPECT_EQ(ran, std::this_thread::get_id());
}

TEST(WorkerThreads, AFailureReachesTheCallerAfterTheOthersFinish) {
  std::atomic<int> finished{0};
  try {
    run_workers(3, [&](int w) {
      if (w == 1) fail("worker ", w, " failed");
      ++finished;
    });
    ADD_FAILURE() << "expected the worker's error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "worker 1 failed");
  }
  EXPECT_EQ(finished, 2);
}

}  // namespace
}  // namespace edgeq
