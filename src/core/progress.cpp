#include "core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/printable.h"

namespace edgeq {

std::string format_duration(double s) {
  char buf[32];
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else {
    long t = std::lround(s);
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  }
  return buf;
}

Progress::Progress(std::string label, size_t total, std::ostream& os, bool tty)
    : label_(printable(label)),  // a file name may be in it
      total_(total),
      os_(os),
      tty_(tty),
      start_(std::chrono::steady_clock::now()) {}

Progress::Progress(std::string label, size_t total)
    : Progress(std::move(label), total, std::cerr, isatty(STDERR_FILENO) == 1) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::step() {
  ++done_;
  if (tty_) {
    print();
    return;
  }
  int decile = total_ ? static_cast<int>(10 * done_ / total_) : 10;
  if (decile != last_decile_) {
    last_decile_ = decile;
    print();
  }
}

void Progress::print() {
  const double t = elapsed_s();
  const double per = done_ ? t / done_ : 0;
  const double eta = per * (total_ > done_ ? total_ - done_ : 0);
  const int width = 24;
  const int filled = total_ ? static_cast<int>(width * std::min(done_, total_) / total_) : width;
  std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %s %zu/%zu  %.0f ms/item  elapsed %s  ETA %s", label_.c_str(),
                bar.c_str(), done_, total_, per * 1e3, format_duration(t).c_str(),
                format_duration(eta).c_str());
  if (tty_) {
    os_ << '\r' << buf << "\x1b[K" << std::flush;
  } else {
    os_ << buf << '\n' << std::flush;
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (tty_ && done_) os_ << '\n' << std::flush;
}

}  // namespace edgeq
