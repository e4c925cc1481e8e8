#include "cli/progress_printer.h"

#include <iostream>

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
      if (!bar_ || task_ != e.task) {
        if (bar_) bar_->finish();
        bar_ = std::make_unique<Progress>(e.task, e.total);
        task_ = e.task;
      }
      if (e.done > 0) bar_->step();
      if (e.done == e.total) bar_->finish();
      break;
    case ProgressEvent::Kind::kMessage:
    case ProgressEvent::Kind::kWarning:
      if (bar_) bar_->finish();
      std::cerr << (e.kind == ProgressEvent::Kind::kWarning ? "warning: " : "") << e.message
                << "\n";
      break;
  }
  return true;
}

}  // namespace edgeq::cli
