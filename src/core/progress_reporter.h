// The library's side of a ProgressCallback (edgeq/progress.h): every long call reports through
// one of these.
#pragma once
#include <cstddef>
#include <mutex>
#include <string>

#include "edgeq/progress.h"

namespace edgeq {

// Reports to a ProgressCallback, one call at a time (from any thread); throws edgeq::Cancelled
// when it answers false, or before it is asked when a front end caught SIGINT / SIGTERM
// (core/interrupt.h).
class ProgressReporter {
 public:
  explicit ProgressReporter(const ProgressCallback& cb) : cb_(cb) {}
  void step(const std::string& task, size_t done, size_t total);
  void message(const std::string& task, const std::string& line);
  void warning(const std::string& task, const std::string& line);

 private:
  void send(const ProgressEvent& e);
  const ProgressCallback& cb_;
  std::mutex m_;
};

}  // namespace edgeq
