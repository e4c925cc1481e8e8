// One line per study step: its number, what it was, how long it took (or that it came from the
// cache), the time so far and an ETA. The ETA prices each remaining step at the mean time of the
// finished steps of its kind (all finished steps when none of its kind has finished yet).
#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace edgeq {

class StudyProgress {
 public:
  // `kinds`: the kind of every step, in the order they will run.
  explicit StudyProgress(std::vector<std::string> kinds);
  // Marks the next step done; returns its line.
  std::string done(const std::string& what, double seconds, bool cached);
  size_t finished() const { return done_; }
  double elapsed_s() const;
  // Remaining time estimate after `done_` steps.
  double eta_s() const;
  size_t total() const { return kinds_.size(); }

 private:
  std::vector<std::string> kinds_;
  size_t done_ = 0;
  std::map<std::string, std::pair<double, int>> by_kind_;  // seconds, count
  double sum_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace edgeq
