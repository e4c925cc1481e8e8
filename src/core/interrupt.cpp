#include "core/interrupt.h"

namespace edgeq {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESTART;  // reads in progress (video decoding) carry on
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &previous_, nullptr);
}

const std::atomic<bool>& InterruptScope::flag() const {
  return g_interrupted;
}

}  // namespace edgeq
