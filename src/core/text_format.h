// Small string helpers shared by the report writers and the QDQ name readers.
#pragma once
#include <cstdio>
#include <string>

#include "core/printable.h"  // printable(), used with these by the report writers

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

}  // namespace edgeq
