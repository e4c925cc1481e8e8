// edgeq's one exception type: every failure of the library is an edgeq::Error whose what() is a
// single line meant for the user (it names the file, value, node or option at fault).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "edgeq/text.h"

namespace edgeq {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when a progress callback asked to stop (edgeq/progress.h); nothing was written.
struct Cancelled : Error {
  Cancelled() : Error("cancelled") {}
  explicit Cancelled(const std::string& what_was_kept) : Error(what_was_kept) {}
};

// Throws edgeq::Error whose message is the arguments streamed together, made printable() (one
// line, nothing a terminal would act on): how every failure of the library and its front ends is
// raised.
namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  throw Error(printable(detail::concat(args...)));
}

}  // namespace edgeq

// fail(...) unless `cond` holds.
#define EDGEQ_CHECK(cond, ...)               \
  do {                                       \
    if (!(cond)) ::edgeq::fail(__VA_ARGS__); \
  } while (0)
