// Ctrl-C for long loops: while an InterruptScope lives, the first SIGINT only raises a flag the
// loop polls (so it can stop cleanly and write what finished); a second one ends the process as
// usual.
#pragma once
#include <atomic>
#include <csignal>

namespace edgeq {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();  // restores the handler that was there before
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // Raised by the first SIGINT.
  const std::atomic<bool>& flag() const;
  bool interrupted() const { return flag().load(); }

 private:
  struct sigaction previous_ {};
};

}  // namespace edgeq
