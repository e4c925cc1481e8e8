// SIGINT (Ctrl-C) and SIGTERM (what timeout, Docker, Kubernetes and Slurm send) for long work,
// one meaning for both: while an InterruptScope lives, the first of them only raises a flag; the
// library's long loops poll it (throw_if_interrupted(), and every progress event), so the work
// stops at its next image, frame, run, iteration or step, keeps what finished (written outputs,
// cache entries, released claims) and throws edgeq::Cancelled. A second signal ends the process
// as usual. The signal caught is remembered after the scope (last_interrupt_signal()): a program
// exits 128 + it, 130 for SIGINT and 143 for SIGTERM, as if the signal had ended it.
// A signal the process ignores (nohup, a background job's SIGINT) stays ignored. Scopes nest: only
// the outermost one installs the handlers. Front ends (the program, the Python module) open them;
// a library call never does.
#pragma once
#include <atomic>
#include <csignal>

namespace edgeq {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();  // the outermost restores the handlers that were there before
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // Raised by the first SIGINT or SIGTERM (until the outermost scope ends).
  const std::atomic<bool>& flag() const;
  bool interrupted() const { return flag().load(); }
  // The signal that raised the flag (SIGINT or SIGTERM), 0 while none did.
  int signal() const;

 private:
  bool outer_ = false;
  struct sigaction previous_[2] = {};
};

// True when an open InterruptScope caught SIGINT or SIGTERM (any thread may ask; cheap).
bool interrupt_requested();
// Throws edgeq::Cancelled when interrupt_requested(): the stopping point of loops that report no
// progress of their own.
void throw_if_interrupted();
// The signal the last outermost scope caught (0: none): the process's exit status is 128 + it.
int last_interrupt_signal();

}  // namespace edgeq
