// Errors: one exception type whose message is a single line meant for the user (fail() makes it
// printable: core/printable.h).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/printable.h"
#include "edgeq/error.h"  // edgeq::Error, the type every failure throws (public API)

namespace edgeq {

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

#define EDGEQ_CHECK(cond, ...)               \
  do {                                       \
    if (!(cond)) ::edgeq::fail(__VA_ARGS__); \
  } while (0)
