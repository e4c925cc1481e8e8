// The pipeline's bounded queue: FIFO order, back-pressure (a producer waits once it is full),
// close drains, cancel releases everyone, dropping the oldest item for live sources.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "frames/bounded_queue.h"

namespace edgeq {
namespace {

using namespace std::chrono_literals;

TEST(DeployQueue, FifoAndCloseDrains) {
  BoundedQueue<int> q(3);
  EXPECT_TRUE(q.push(1));
  EXPECT_TRUE(q.push(2));
  q.close();
  EXPECT_FALSE(q.push(3));  // closed: refused
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), std::nullopt);
  EXPECT_EQ(q.high_water(), 2u);
}

TEST(DeployQueue, ProducerWaitsWhileFull) {
  BoundedQueue<int> q(2);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 10; ++i) {
      q.push(i);
      ++pushed;
    }
    q.close();
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(pushed.load(), 2);  // the third push waits for room
  std::vector<int> got;
  while (auto v = q.pop()) {
    got.push_back(*v);
    EXPECT_LE(pushed.load() - static_cast<int>(got.size()), 2);  // never more than 2 queued
  }
  producer.join();
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], i);
  EXPECT_EQ(q.high_water(), 2u);
}

TEST(DeployQueue, CancelReleasesAWaitingProducerAndConsumer) {
  BoundedQueue<int> full(1), empty(1);
  full.push(0);
  std::atomic<bool> push_returned{false}, pop_returned{false};
  bool push_result = true;
  std::optional<int> pop_result = 5;
  std::thread producer([&] {
    push_result = full.push(1);
    push_returned = true;
  });
  std::thread consumer([&] {
    pop_result = empty.pop();
    pop_returned = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(push_returned.load());
  EXPECT_FALSE(pop_returned.load());
  full.cancel();
  empty.cancel();
  producer.join();
  consumer.join();
  EXPECT_FALSE(push_result);
  EXPECT_EQ(pop_result, std::nullopt);
  EXPECT_EQ(full.pop(), std::nullopt);  // cancel discarded the queued item
}

TEST(DeployQueue, DroppingOldestKeepsTheNewestInOrder) {
  BoundedQueue<int> q(3);
  size_t dropped = 0;
  for (int i = 0; i < 7; ++i) dropped += q.push_dropping_oldest(i);
  EXPECT_EQ(dropped, 4u);
  EXPECT_EQ(q.high_water(), 3u);
  q.close();
  EXPECT_EQ(q.pop(), 4);
  EXPECT_EQ(q.pop(), 5);
  EXPECT_EQ(q.pop(), 6);
  EXPECT_EQ(q.pop(), std::nullopt);
  EXPECT_EQ(q.push_dropping_oldest(9), 0u);  // closed: discarded, nothing counted
}

}  // namespace
}  // namespace edgeq
