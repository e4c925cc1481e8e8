#include "progress_printer.h"

#include <iostream>

#include "edgeq/text.h"

namespace edgeq::cli {

ProgressPrinter::~ProgressPrinter() {
  if (bar_) bar_->finish();
}

ProgressCallback ProgressPrinter::callback() {
  return [this](const ProgressEvent& e) { return on_event(e); };
}

bool ProgressPrinter::on_event(const ProgressEvent& e) {
  if (interrupt_.interrupted()) return false;
  switch (e.kind) {
    case ProgressEvent::Kind::kStep:
      // A new bar for a new task, or when a task starts again (a count that goes back, another
      // total): a bar only counts up to its total.
      if (!bar_ || task_ != e.task || e.total != total_ || e.done <= done_) {
        if (bar_) bar_->finish();
        bar_ = std::make_unique<Progress>(e.task, e.total);
        task_ = e.task;
        total_ = e.total;
        done_ = 0;
      }
      for (; done_ < e.done; ++done_) bar_->step();
      if (e.done == e.total) bar_->finish();
      break;
    case ProgressEvent::Kind::kMessage:
    case ProgressEvent::Kind::kWarning:
      if (bar_) bar_->finish();
      std::cerr << (e.kind == ProgressEvent::Kind::kWarning ? "warning: " : "")
                << printable(e.message) << "\n";
      break;
  }
  return true;
}

ProgressCallback line_printer(const InterruptScope& interrupt, const std::string& main_task) {
  return [&interrupt, main_task](const ProgressEvent& e) {
    if (e.kind == ProgressEvent::Kind::kWarning)
      std::cerr << "warning: " << printable(e.message) << "\n";
    else if (e.kind == ProgressEvent::Kind::kMessage)
      std::cerr << (e.task == main_task ? "" : "    ") << printable(e.message) << "\n"
                << std::flush;
    return !interrupt.interrupted();
  };
}

}  // namespace edgeq::cli
