// A bounded FIFO between two pipeline stages: the producer waits while it is full (back-pressure
// instead of growth), or, for live sources, makes room by dropping the oldest item.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace edgeq {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

  // Waits while the queue is full. False (item discarded) once the queue is closed.
  bool push(T item) {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    add(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // Never waits: when full, drops the oldest queued item to make room. Returns how many items
  // were dropped (0 or 1); a closed queue discards `item` and counts nothing.
  size_t push_dropping_oldest(T item) {
    std::unique_lock<std::mutex> lock(m_);
    if (closed_) return 0;
    size_t dropped = 0;
    if (items_.size() >= capacity_) {
      items_.pop_front();
      dropped = 1;
    }
    add(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return dropped;
  }

  // Waits for an item; nullopt once the queue is closed and drained (or cancelled).
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  // No more pushes; pop() still returns what is queued.
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  // Closes and discards what is queued: every waiting push and pop returns at once.
  void cancel() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
      items_.clear();
    }
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  size_t capacity() const { return capacity_; }
  // The most items the queue ever held at once.
  size_t high_water() const {
    std::lock_guard<std::mutex> lock(m_);
    return high_water_;
  }

 private:
  void add(T item) {
    items_.push_back(std::move(item));
    high_water_ = std::max(high_water_, items_.size());
  }

  const size_t capacity_;
  mutable std::mutex m_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  size_t high_water_ = 0;
  bool closed_ = false;
};

}  // namespace edgeq
