// Small string helpers shared by the report writers and the QDQ name readers.
#pragma once
#include <cstdio>
#include <string>

namespace edgeq {

// One number through a printf format holding a single double conversion ("%.3g", "%.1f%%");
// the result is cut at 63 characters.
inline std::string format_number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// `s` without a trailing `suffix`; unchanged when it does not end with it or is only the suffix.
inline std::string strip_suffix(const std::string& s, const std::string& suffix) {
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    return s.substr(0, s.size() - suffix.size());
  return s;
}

// `s` safe to print on a terminal or a CI log: control characters (below 0x20, and 0x7f) as
// \xNN, so a stored string cannot move the cursor, clear a line or forge a log line.
inline std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace edgeq
