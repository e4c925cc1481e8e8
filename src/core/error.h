// Errors: one exception type whose message is a single line meant for the user (fail() escapes
// control characters).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "edgeq/error.h"  // edgeq::Error, the type every failure throws (public API)

namespace edgeq {

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// Control characters (a newline in a value name or a library's message) escaped as \n, \r or
// \xHH, so an error stays one line.
inline std::string one_line(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}
}  // namespace detail

template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  throw Error(detail::one_line(detail::concat(args...)));
}

}  // namespace edgeq

#define EDGEQ_CHECK(cond, ...)               \
  do {                                       \
    if (!(cond)) ::edgeq::fail(__VA_ARGS__); \
  } while (0)
