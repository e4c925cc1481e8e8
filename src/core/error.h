// Errors: one exception type whose message is a single line meant for the user.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace edgeq {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
  throw Error(detail::concat(args...));
}

}  // namespace edgeq

#define EDGEQ_CHECK(cond, ...)               \
  do {                                       \
    if (!(cond)) ::edgeq::fail(__VA_ARGS__); \
  } while (0)
