#include "core/interrupt.h"

#include <mutex>

#include "edgeq/error.h"

namespace edgeq {
namespace {

constexpr int kSignals[2] = {SIGINT, SIGTERM};

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
// Which of kSignals the outermost scope handles (a signal the process ignores is left alone).
std::atomic<bool> g_handled[2] = {{false}, {false}};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

std::mutex g_scopes_mutex;  // scopes open and close on any thread
int g_depth = 0;

void on_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);  // the first one is the one reported
  g_interrupted.store(true);
  // A second SIGINT or SIGTERM ends the process (sigaction is async-signal-safe).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int i = 0; i < 2; ++i)
    if (g_handled[i].load()) sigaction(kSignals[i], &dfl, nullptr);
}

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(g_scopes_mutex);
  if (g_depth++ > 0) return;
  outer_ = true;
  g_interrupted.store(false);
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;  // reads in progress (video decoding) carry on
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 2; ++i) {
    sigaction(kSignals[i], nullptr, &previous_[i]);
    const bool ignored =
        !(previous_[i].sa_flags & SA_SIGINFO) && previous_[i].sa_handler == SIG_IGN;
    g_handled[i].store(!ignored);
    if (!ignored) sigaction(kSignals[i], &sa, nullptr);
  }
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(g_scopes_mutex);
  --g_depth;
  if (!outer_) return;
  for (int i = 0; i < 2; ++i)
    if (g_handled[i].exchange(false)) sigaction(kSignals[i], &previous_[i], nullptr);
  g_interrupted.store(false);  // g_signal stays: last_interrupt_signal()
}

const std::atomic<bool>& InterruptScope::flag() const {
  return g_interrupted;
}

int InterruptScope::signal() const {
  return g_signal.load();
}

bool interrupt_requested() {
  return g_interrupted.load(std::memory_order_relaxed);
}

void throw_if_interrupted() {
  if (interrupt_requested()) throw Cancelled();
}

int last_interrupt_signal() {
  return g_signal.load();
}

}  // namespace edgeq
