// The command line's view of a library call's progress (edgeq/progress.h): a Progress bar per
// task on stderr, messages and warnings as lines, and Ctrl-C turned into a cancel (the call then
// throws edgeq::Cancelled; main reports it and exits 130). A second Ctrl-C ends the process.
#pragma once
#include <memory>
#include <string>

#include "edgeq/interrupt.h"
#include "edgeq/progress.h"
#include "edgeq/progress_bar.h"

namespace edgeq::cli {

class ProgressPrinter {
 public:
  ProgressPrinter() = default;
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  ~ProgressPrinter();
  // The callback to hand to the library; valid while this printer lives.
  ProgressCallback callback();

 private:
  bool on_event(const ProgressEvent& e);
  InterruptScope interrupt_;
  std::unique_ptr<Progress> bar_;
  std::string task_;
  size_t done_ = 0, total_ = 0;  // of the current bar
};

// Lines only, no bars: messages of `main_task` as they are, other tasks' messages indented below
// them, warnings; Ctrl-C (through `interrupt`) cancels at the next event.
ProgressCallback line_printer(const InterruptScope& interrupt, const std::string& main_task);

}  // namespace edgeq::cli
