#include "core/printable.h"

#include <cstdint>
#include <cstdio>

#include "core/utf8.h"

namespace edgeq {
namespace {

// Characters that change how the text around them is shown without being seen themselves.
bool is_format_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (n == 0 || c < 0x20 || c == 0x7f) {
      append_escape(out, "\\x%02x", c);
    } else if (n > 1 && is_format_control(utf8_code_point(s, i, n))) {
      append_escape(out, "\\u%04x", utf8_code_point(s, i, n));
    } else {
      out.append(s.substr(i, n));
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

bool has_control_characters(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if ((n == 1 && (c < 0x20 || c == 0x7f)) ||
        (n > 1 && is_format_control(utf8_code_point(s, i, n))))
      return true;
    i += n == 0 ? 1 : n;
  }
  return false;
}

std::string printable_path(std::string_view path, size_t max_chars) {
  const std::string p = printable(path);
  if (p.size() <= max_chars || max_chars < 8) return p;
  // Cut at character boundaries: never inside an escape's UTF-8 neighbour.
  const size_t head = (max_chars - 3) / 2, tail = max_chars - 3 - head;
  size_t a = head;
  while (a > 0 && utf8_length(p, a) == 0) --a;
  size_t b = p.size() - tail;
  while (b < p.size() && utf8_length(p, b) == 0) ++b;
  return p.substr(0, a) + "..." + p.substr(b);
}

}  // namespace edgeq
