#include "core/progress_reporter.h"

#include "core/interrupt.h"

namespace edgeq {

void ProgressReporter::send(const ProgressEvent& e) {
  throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM, callback or not
  if (!cb_) return;
  std::lock_guard<std::mutex> lock(m_);
  if (!cb_(e)) throw Cancelled();
}

void ProgressReporter::step(const std::string& task, size_t done, size_t total) {
  send({ProgressEvent::Kind::kStep, task, done, total, ""});
}

void ProgressReporter::message(const std::string& task, const std::string& line) {
  send({ProgressEvent::Kind::kMessage, task, 0, 0, line});
}

void ProgressReporter::warning(const std::string& task, const std::string& line) {
  send({ProgressEvent::Kind::kWarning, task, 0, 0, line});
}

}  // namespace edgeq
