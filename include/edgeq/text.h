// Text from outside the program (file names, tags, target and value names, a file's lines) made
// safe to print on a terminal or into a log: nothing it holds can move the cursor, set the
// window title (ESC / OSC sequences), forge a line, or reorder what follows it on screen (bidi
// controls such as U+202E). Every message and printed line that carries such text goes through
// printable(); error messages do so in fail() (edgeq/error.h).
//
// Also the small text helpers every front end shares: comma-separated option values and one
// number through a printf format.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace edgeq {

// `s` with \n, \r and \t as those two-character escapes; other control characters (C0 and DEL)
// and bytes that are not UTF-8 as \xHH; C1 controls (U+0080-U+009F), bidi and invisible
// formatting characters (U+061C, U+200B-U+200F, U+2028-U+202E, U+2060-U+2069, U+FEFF) as \uHHHH.
// Everything else, including other UTF-8 text, is kept.
std::string printable(std::string_view s);

// Whether `s` holds a character printable() escapes other than a byte that is not UTF-8: a
// control (C0, DEL, C1) or a bidi / invisible formatting character.
bool has_control_characters(std::string_view s);

// A path for a message: printable(), and when that is longer than `max_chars`, its start and end
// around "...", so a message never carries a whole line of a file that was mistaken for a list.
std::string printable_path(std::string_view path, size_t max_chars = 96);

// Comma-separated option values ("a,b,c"), split in one place for every subcommand, the study
// config and the ledger gate.
// The items of `s` split at commas; empty items ("a,,b", a trailing comma) are dropped.
std::vector<std::string> comma_list(const std::string& s);

// Refuses an item given twice ("schemes: 'w8a8' is given twice"): a list option names each thing
// once (a repeated scheme would run twice, a repeated limit be checked twice).
void check_unique(const std::vector<std::string>& items, const std::string& what);

// Small string helpers shared by the report writers and the QDQ name readers.
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
