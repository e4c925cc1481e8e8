// Progress on stderr for long loops: one line rewritten with '\r' when stderr is a terminal,
// otherwise a plain line about every 10% (logs stay readable). Shows done/total, rate and ETA.
#pragma once
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace edgeq {

class Progress {
 public:
  // `tty`: rewrite one line; by default, whether stderr is a terminal.
  Progress(std::string label, size_t total, std::ostream& os, bool tty);
  Progress(std::string label, size_t total);
  // Marks one more item done.
  void step();
  // Ends the line (terminal form) after the last step.
  void finish();
  double elapsed_s() const;

 private:
  void print();
  std::string label_;
  size_t total_ = 0, done_ = 0;
  int last_decile_ = -1;
  std::ostream& os_;
  bool tty_ = false;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

// "1m05s" / "12.3s" for ETAs and totals.
std::string format_duration(double seconds);

}  // namespace edgeq
