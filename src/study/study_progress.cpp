#include "study/study_progress.h"

#include <cstdio>

#include "core/progress.h"

namespace edgeq {

StudyProgress::StudyProgress(std::vector<std::string> kinds)
    : kinds_(std::move(kinds)), start_(std::chrono::steady_clock::now()) {}

double StudyProgress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double StudyProgress::eta_s() const {
  if (done_ == 0) return -1;  // unknown
  const double mean_all = sum_ / static_cast<double>(done_);
  double eta = 0;
  for (size_t i = done_; i < kinds_.size(); ++i) {
    auto it = by_kind_.find(kinds_[i]);
    eta += it != by_kind_.end() ? it->second.first / it->second.second : mean_all;
  }
  return eta;
}

std::string StudyProgress::done(const std::string& what, double seconds, bool cached) {
  const std::string kind = done_ < kinds_.size() ? kinds_[done_] : "?";
  ++done_;
  auto& k = by_kind_[kind];
  k.first += seconds;
  k.second += 1;
  sum_ += seconds;
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%zu/%zu] ", done_, kinds_.size());
  return buf + what + ": " + (cached ? "cached" : format_duration(seconds)) + "  elapsed " +
         format_duration(elapsed_s()) + ", ETA " + format_duration(eta_s());
}

}  // namespace edgeq
