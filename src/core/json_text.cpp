#include "core/json_text.h"

#include <cstdio>

#include "core/error.h"
#include "core/file_io.h"
#include "core/utf8.h"

namespace edgeq {
namespace {

using nlohmann::json;

// Inside this file a string that may hold any bytes travels through nlohmann::json in a marked
// form that is UTF-8: a byte outside UTF-8 becomes NUL + the character U+00XX, and NUL itself
// becomes NUL + U+0001. nlohmann writes NUL as \u0000 and U+0080-U+00FF as themselves, so the
// marks are found again in the text and turned into \udcXX (and back to \u0000).
constexpr char kMark = '\0';

void append_marked_byte(std::string& out, unsigned byte) {
  out += kMark;
  out += static_cast<char>(0xc0 | (byte >> 6));
  out += static_cast<char>(0x80 | (byte & 0x3f));
}

std::string mark(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      append_marked_byte(out, static_cast<unsigned char>(s[i]));
      i += 1;
    } else if (s[i] == kMark) {
      out += kMark;
      out += '\x01';
      i += 1;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string unmark(const std::string& s) {
  if (s.find(kMark) == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == kMark && i + 1 < s.size() && s[i + 1] == '\x01') {
      out += kMark;
      i += 2;
    } else if (s[i] == kMark && i + 2 < s.size()) {
      out += static_cast<char>(((s[i + 1] & 0x03) << 6) | (s[i + 2] & 0x3f));
      i += 3;
    } else {
      out += s[i++];
    }
  }
  return out;
}

bool all_utf8(const json& j) {
  if (j.is_string()) return is_utf8(j.get_ref<const std::string&>());
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!is_utf8(it.key()) || !all_utf8(it.value())) return false;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (!all_utf8(v)) return false;
  }
  return true;
}

template <class F>
json map_strings(const json& j, const F& f) {
  if (j.is_string()) return f(j.get_ref<const std::string&>());
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[f(it.key())] = map_strings(it.value(), f);
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(map_strings(v, f));
    return out;
  }
  return j;
}

// Dumped text of a marked document -> the text with \udcXX escapes.
std::string escapes_from_marks(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '\\') {
      out += text[i++];
    } else if (text.compare(i, 6, "\\u0000") != 0) {
      out.append(text, i, 2);  // any other escape, "\\" included, is copied whole
      i += 2;
    } else if (text.compare(i + 6, 6, "\\u0001") == 0) {
      out += "\\u0000";
      i += 12;
    } else {
      const unsigned byte = ((text[i + 6] & 0x03) << 6) | (text[i + 7] & 0x3f);
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\udc%02x", byte);
      out += buf;
      i += 8;
    }
  }
  return out;
}

int hex_value(std::string_view h) {
  int v = 0;
  for (const char c : h) {
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// JSON text -> the same text with \udcXX escapes (outside surrogate pairs) and \u0000 as marks;
// `marked` says whether any was found.
std::string marks_from_escapes(std::string_view text, bool& marked) {
  std::string out;
  out.reserve(text.size());
  bool after_high_surrogate = false;
  for (size_t i = 0; i < text.size();) {
    const int v = text[i] == '\\' && i + 6 <= text.size() && text[i + 1] == 'u'
                      ? hex_value(text.substr(i + 2, 4))
                      : -1;
    if (v < 0) {
      const size_t n = text[i] == '\\' && i + 1 < text.size() ? 2 : 1;
      out.append(text.substr(i, n));
      i += n;
      after_high_surrogate = false;
      continue;
    }
    if (v == 0) {
      out += "\\u0000\\u0001";
      marked = true;
    } else if (v >= 0xdc80 && v <= 0xdcff && !after_high_surrogate) {
      out += "\\u0000";
      const unsigned byte = static_cast<unsigned>(v) & 0xff;
      out += static_cast<char>(0xc0 | (byte >> 6));
      out += static_cast<char>(0x80 | (byte & 0x3f));
      marked = true;
    } else {
      out.append(text.substr(i, 6));
    }
    after_high_surrogate = v >= 0xd800 && v <= 0xdbff;
    i += 6;
  }
  return out;
}

}  // namespace

bool is_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string json_text(const json& j, int indent) {
  if (all_utf8(j)) return j.dump(indent);
  return escapes_from_marks(map_strings(j, mark).dump(indent));
}

json parse_json_text(std::string_view text) {
  if (text.find("\\u") == std::string_view::npos) return json::parse(text);
  bool marked = false;
  const std::string pre = marks_from_escapes(text, marked);
  if (!marked) return json::parse(text);
  return map_strings(json::parse(pre), unmark);
}

namespace {

// nlohmann's DOM builder, refusing to open a level past the limit (returning false stops the
// reader before it recurses further).
class DepthLimitedSax {
 public:
  DepthLimitedSax(json& out, int max_depth) : dom_(out, true), max_depth_(max_depth) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return deeper() && dom_.start_object(n); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return deeper() && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    return dom_.parse_error(position, token, ex);
  }
  bool too_deep() const { return too_deep_; }

 private:
  bool deeper() {
    too_deep_ = ++depth_ > max_depth_;
    return !too_deep_;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0, max_depth_;
  bool too_deep_ = false;
};

}  // namespace

json json_from_cbor(std::string_view bytes, int max_depth) {
  json out;
  DepthLimitedSax sax(out, max_depth);
  const bool ok = json::sax_parse(bytes.begin(), bytes.end(), &sax, json::input_format_t::cbor);
  if (sax.too_deep())
    throw json::parse_error::create(
        113, 0, "CBOR nested deeper than " + std::to_string(max_depth) + " levels", nullptr);
  if (!ok) throw json::parse_error::create(110, 0, "incomplete CBOR", nullptr);
  return out;
}

std::string read_json_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  return read_file_of_format(path, max_bytes, 4096, [&](const std::string& head) {
    const size_t first = head.find_first_not_of(" \t\r\n");
    const bool json = first != std::string::npos ? head[first] == '{' || head[first] == '['
                                                 : head.size() < 4096;  // white space or empty
    EDGEQ_CHECK(json, what, ": not valid JSON (it starts with neither '{' nor '[')");
  });
}

}  // namespace edgeq
